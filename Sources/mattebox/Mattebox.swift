import ArgumentParser
import MatteboxCore
import MatteboxRuntime

/// The `mattebox` command: process photos through plugin pipelines and manage
/// the plugins they use.
@main
struct Mattebox: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mattebox",
        abstract: "Capture photos with auxiliary mattes and post-process them through plugin pipelines.",
        discussion: """
            Plugins are found on MATTEBOX_PLUGIN_PATH (a ':'-separated list of folders), beside the \
            mattebox executable, in lib/mattebox/plugins-1 next to its bin folder, in \
            ~/.local/share/mattebox/plugins-1 and in /usr/local/lib and /usr/lib mattebox/plugins-1. \
            Set MATTEBOX_LOG=info or debug for more detail on standard error.
            """,
        version: MatteboxVersion.current,
        subcommands: [
            ProcessCommand.self, ExportCommand.self, InspectCommand.self, DepthCommand.self, CalibrateCommand.self,
            EvaluateCommand.self, PluginsCommand.self, PipelineCommand.self, DevicesCommand.self, CaptureCommand.self,
            ThermalCommand.self, WorkerCommand.self,
        ])
}
