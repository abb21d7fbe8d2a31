import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxRuntime

/// `mattebox plugins new`: a plugin folder a newcomer can build, try and
/// install at once, in C (a Makefile over `pkg-config mattebox-plugin`) or
/// Swift (a package over the SDK), with a pipeline and a test photo. The files
/// are the ones in `Templates/Assets`, embedded at build time, with the names filled in.
struct PluginTemplate {
    enum Language: String, CaseIterable {
        case c, swift
    }

    /// The folder and library name: lower-case words joined by hyphens (`brighten`, `film-grain`).
    let name: String
    let id: String
    let language: Language
    /// The Mattebox checkout whose SDK a Swift plugin builds on.
    let sdk: URL?

    init(name: String, id: String?, language: Language, sdk: URL?) throws {
        guard name.range(of: #"^[a-z][a-z0-9]*(-[a-z0-9]+)*$"#, options: .regularExpression) != nil else {
            throw MatteboxError("the plugin name must be lower-case words joined by hyphens (e.g. film-grain), not \(name)", commandLineMistake: true)
        }
        let id = id ?? "org.example.\(name)"
        guard id.range(of: #"^[a-z0-9-]+(\.[a-z0-9-]+)+$"#, options: .regularExpression) != nil else {
            throw MatteboxError("--id must be reverse-DNS (e.g. org.example.\(name)), not \(id)", commandLineMistake: true)
        }
        self.name = name
        self.id = id
        self.language = language
        self.sdk = sdk
    }

    /// The checkout this mattebox was built in (its `.build/<triple>/<config>` folder), if it was.
    static var checkout: URL? {
        var folder = URL(fileURLWithPath: HostExecutable.path).deletingLastPathComponent()
        for _ in 0..<4 {
            folder.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Sources/PluginInterface/MatteboxPluginSDK").path) { return folder }
        }
        return nil
    }

    /// Where `<mattebox/plugin.h>` is for this mattebox: an installed prefix's include folder, or the checkout's.
    static var includeFolder: String? {
        let installed = URL(fileURLWithPath: HostExecutable.path).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("include")
        if FileManager.default.fileExists(atPath: installed.appendingPathComponent("mattebox/plugin.h").path) { return installed.path }
        return checkout.map { $0.appendingPathComponent("Sources/PluginInterface/CMatteboxPluginABI/include").path }
    }

    /// Writes the folder (which must not exist) and returns the files written, relative to it.
    func write(to folder: URL) throws -> [String] {
        guard !FileManager.default.fileExists(atPath: folder.path) else {
            throw MatteboxError("\(folder.path) already exists; plugins new writes a new folder and never into one")
        }
        var files: [(String, String)] = [("README.md", "README.md"), ("pipeline.yaml", "pipeline.yaml")]
        switch language {
        case .c:
            files += [("c/plugin.c", "\(name).c"), ("c/Makefile", "Makefile")]
        case .swift:
            guard sdk != nil else {
                throw MatteboxError(
                    "a Swift plugin builds on the SDK's sources, and this mattebox was not built from a checkout: "
                        + "give --sdk with the path of a Mattebox checkout", commandLineMistake: true)
            }
            files += [("swift/Package.swift", "Package.swift"), ("swift/Plugin.swift", "Sources/\(name)/\(typeName).swift"),
                      ("swift/Makefile", "Makefile")]
        }
        try makeFolder(folder)
        for (template, destination) in files {
            guard let text = EmbeddedFiles.byName[template] else { throw MatteboxError("this mattebox has no template \(template)") }
            let url = folder.appendingPathComponent(destination)
            try makeFolder(url.deletingLastPathComponent())
            try AtomicFile.write(Data(filled(text).utf8), to: url)
        }
        let photo = Photo(primary: Self.testPattern())
        try AtomicFile.write(try ImageEncoder.encode(photo, as: .jpeg), to: folder.appendingPathComponent("test-photo.jpg"))
        return files.map(\.1) + ["test-photo.jpg"]
    }

    private var words: [String] { name.split(separator: "-").map(String.init) }
    var typeName: String { words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined() }
    private var title: String { words.joined(separator: " ").prefix(1).uppercased() + words.joined(separator: " ").dropFirst() }

    private func filled(_ text: String) -> String {
        let values: [String: String] = [
            "NAME": name, "ID": id, "TITLE": title, "TYPE": typeName, "SYMBOL": name.replacingOccurrences(of: "-", with: "_"),
            "VENDOR": "Your name", "MATTEBOX": HostExecutable.path, "INCLUDE": Self.includeFolder ?? "/usr/local/include",
            "SDK_PATH": sdk?.path ?? "", "SDK_PACKAGE": sdk?.lastPathComponent.lowercased() ?? "",
            "LANGUAGE": language == .c ? "C" : "Swift", "SOURCE": language == .c ? "\(name).c" : "Sources/\(name)/\(typeName).swift",
            "STAGE": id.split(separator: ".").last.map(String.init) ?? name,
        ]
        var result = text
        for (key, value) in values { result = result.replacingOccurrences(of: "{{\(key)}}", with: value) }
        return result
    }

    /// Folders Mattebox will load a plugin from must be writable by their owner alone.
    private func makeFolder(_ url: URL) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        chmod(url.path, 0o755)
    }

    /// A colour test photo: hue across, brightness down, so a change to the pixels shows.
    static func testPattern(width: Int = 320, height: Int = 240) -> PixelImage {
        let image = PixelImage(width: width, height: height, channels: 3, format: .uint8)
        let pixels = image.data.assumingMemoryBound(to: UInt8.self)
        for y in 0..<height {
            for x in 0..<width {
                let index = (y * width + x) * 3, level = 0.35 + 0.5 * Double(height - y) / Double(height)
                pixels[index] = UInt8(255 * level * Double(x) / Double(width))
                pixels[index + 1] = UInt8(255 * level * (1 - Double(x) / Double(width)))
                pixels[index + 2] = UInt8(255 * level * 0.6)
            }
        }
        return image
    }
}
