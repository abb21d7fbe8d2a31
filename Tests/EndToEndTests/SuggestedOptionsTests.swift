import Foundation
import MatteboxTestSupport
import Testing

/// Every option a message names exists (issue 46, finding 6): each `--name`
/// in a string the sources print is an option of some command, as the
/// command line itself describes them (`--experimental-dump-help`); and what
/// a render's photo can be told (the writer's notes, the pipeline's checks,
/// the portrait effect's notes) names options `render` has.
@Suite struct SuggestedOptionsTests {
    /// Long options by command path ("render", "plugins inspect").
    private func options() throws -> [String: Set<String>] {
        let dump = TestEnvironment.run([TestEnvironment.mattebox, "--experimental-dump-help"])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.output.utf8)) as? [String: Any])
        var found: [String: Set<String>] = [:]
        func walk(_ command: [String: Any], _ path: [String]) {
            let names = (command["arguments"] as? [[String: Any]] ?? []).flatMap { $0["names"] as? [[String: String]] ?? [] }
            found[path.joined(separator: " ")] = Set(names.filter { $0["kind"] == "long" }.compactMap { $0["name"] })
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                walk(sub, path + [sub["commandName"] as? String ?? "?"])
            }
        }
        walk(try #require(root["command"] as? [String: Any]), [])
        return found
    }

    /// `--name`s inside string literals of the Swift files under `folders`, with where.
    private func named(in paths: [String]) throws -> [(option: String, place: String)] {
        var found: [(String, String)] = []
        for path in paths {
            let root = TestEnvironment.packageRoot.appendingPathComponent(path)
            let files = path.hasSuffix(".swift") ? [root]
                : (FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? [])
                    .filter { $0.pathExtension == "swift" }
            for file in files {
                for (number, line) in try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                    for literal in line.matches(of: #/"((?:[^"\\]|\\.)*)"/#) {
                        for option in String(literal.output.1).matches(of: #/(?:^|[^\w-])--([a-z][a-z0-9-]+)/#) {
                            found.append((String(option.output.1), "\(file.lastPathComponent):\(number + 1)"))
                        }
                    }
                }
            }
        }
        return found
    }

    @Test func everyOptionAMessageNamesExists() throws {
        let all = try options().values.reduce(into: Set<String>()) { $0.formUnion($1) }
        #expect(all.contains("aux-png") && all.contains("resume"), "the command line was read")
        // pip's own options, in the pip command line the model installer runs, and ArgumentParser's --version.
        let notOurs: Set<String> = ["no-deps", "only-binary", "no-binary", "no-cache-dir", "require-hashes", "hash", "version"]
        let unknown = try named(in: ["Sources", "Plugins"]).filter { !all.contains($0.option) && !notOurs.contains($0.option) }
        #expect(unknown.isEmpty, "\(unknown.map { "--\($0.option) (\($0.place))" })")
    }

    @Test func whatARenderIsToldNamesRendersOwnOptions() throws {
        let render = try #require(try options()["render"])
        let told = try named(in: [
            "Sources/Formats/MatteboxImageIO/Containers/ImageContainer.swift", "Sources/Processing/MatteboxPipeline/PipelineValidator.swift",
            "Plugins/PortraitEffect", "Sources/Processing/MatteboxPipeline/OutputSafety.swift",
        ])
        // "--set:" names where a parameter came from; render makes its pipeline from its own options and sets none.
        let unknown = told.filter { !render.contains($0.option) && $0.option != "set" }
        #expect(!told.isEmpty && unknown.isEmpty, "\(unknown.map { "--\($0.option) (\($0.place))" })")
    }
}
