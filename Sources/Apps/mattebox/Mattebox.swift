import ArgumentParser
import Foundation
import MatteboxCore
import MatteboxPipeline
import MatteboxRuntime

/// The `mattebox` command: process photos through plugin pipelines and manage
/// the plugins they use.
@main
struct Mattebox: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mattebox",
        abstract: "Capture photos with auxiliary mattes and post-process them through plugin pipelines.",
        discussion: """
            Plugins are found on MATTEBOX_PLUGIN_PATH (a ':'-separated list of folders), beside the \
            mattebox executable, in lib/mattebox/plugins-1 next to its bin folder, in \
            ~/.local/share/mattebox/plugins-1 and in /usr/local/lib and /usr/lib mattebox/plugins-1. \
            Every command takes -q (errors only) and -v/-vv (more detail) for standard error; \
            MATTEBOX_LOG=error|warning|info|debug sets the same level. Exit status: 0 success, \
            1 a photo, file, device or plugin failed, 64 the command line is wrong. \
            `mattebox --version` lists the versions of Mattebox, the plugin ABI and the libraries.
            """,
        subcommands: [
            ProcessCommand.self, RenderCommand.self, ExportCommand.self, InspectCommand.self, DepthCommand.self, CalibrateCommand.self,
            EvaluateCommand.self, PluginsCommand.self, PipelineCommand.self, DevicesCommand.self, CaptureCommand.self,
            RecordCommand.self, ControlsCommand.self, ReportCommand.self, ServeCommand.self, ThermalCommand.self, ModelsCommand.self, WorkerCommand.self, InferenceServerCommand.self,
        ])

    /// Parses and runs like ArgumentParser's own `main`, with three differences:
    /// an error from a subcommand shows that subcommand's usage (not the
    /// root's); an unknown command (or `help UNKNOWN`) fails with a
    /// suggestion; command-line mistakes exit 64 and everything else 1.
    static func main() async {
        let arguments = CommandLine.arguments.dropFirst().flatMap(splittingAttachedCount)
        // Answered here, not through the configuration, so that only --version loads the
        // vision library to ask OpenCV's version; every other command starts without it.
        if arguments == ["--version"] {
            print(VersionReport.text)
            return
        }
        if let problem = unknownCommand(in: arguments) {
            FileHandle.standardError.write(Data("Error: \(problem)\nSee 'mattebox --help' for the commands.\n".utf8))
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        Log.warnAboutEnvironment()
        var command: ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            exit(withError: error)
        }
        do {
            // Commands that wait on a camera or a server are async; the rest run as they are.
            if var asynchronous = command as? AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch let error as ValidationError {
            // A mistake on the command line found while running: this subcommand's usage, exit 64.
            let subcommand = type(of: command)
            let name = subcommand.configuration.commandName.map { "mattebox \($0)" } ?? "mattebox"
            FileHandle.standardError.write(Data("""
                Error: \(error.message)
                Usage: \(usageString(for: subcommand))
                  See '\(name) --help' for more information.

                """.utf8))
            Foundation.exit(ExitCode.validationFailure.rawValue)
        } catch let error as MatteboxError where error.isCommandLineMistake {
            commandLineMistake(error.description)
        } catch let error as PipelineError {
            // The pipeline named on the command line cannot run as written.
            commandLineMistake(error.description)
        } catch {
            exit(withError: error)
        }
    }

    private static func commandLineMistake(_ message: String) -> Never {
        FileHandle.standardError.write(Data("Error: \(message)\n".utf8))
        Foundation.exit(ExitCode.validationFailure.rawValue)
    }

    /// `-j4` as `-j 4`, as make and xargs take it (ArgumentParser reads `-j4` as flags j and 4).
    static func splittingAttachedCount(_ argument: String) -> [String] {
        guard argument.count > 2, argument.hasPrefix("-j"), argument.dropFirst(2).allSatisfy(\.isNumber) else { return [argument] }
        return ["-j", String(argument.dropFirst(2))]
    }

    /// The names a user may type first (visible subcommands, and help).
    static var commandNames: [String] {
        configuration.subcommands.filter { $0.configuration.shouldDisplay }.compactMap { $0.configuration.commandName }
    }

    /// A message when the first word is not a command (or `help X` names none).
    static func unknownCommand(in arguments: [String]) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-") else { return nil }
        let all = configuration.subcommands.compactMap { $0.configuration.commandName }
        if first == "help" {
            guard arguments.count > 1, let topic = arguments.dropFirst().first, !topic.hasPrefix("-") else { return nil }
            return all.contains(topic)
                ? nil : "no command `\(topic)` to show help for\(Suggestion.clause(for: topic, among: commandNames))"
        }
        return all.contains(first) ? nil : "unknown command `\(first)`\(Suggestion.clause(for: first, among: commandNames))"
    }
}
