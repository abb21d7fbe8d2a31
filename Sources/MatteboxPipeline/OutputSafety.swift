import Foundation
import MatteboxRuntime

/// What a writer may put where: an output never replaces an input (named by
/// its identity, so a link or another route to the same file is caught), and
/// an existing file is replaced only when Mattebox wrote it there itself (the
/// output folder's manifest says so) or the user said `--overwrite`;
/// `--no-clobber` skips photos whose outputs exist.
public struct OutputSafety: Sendable, Codable {
    public enum ExistingFiles: String, Sendable, Codable {
        /// Fail the photo, naming the file (the default).
        case refuse
        /// Replace it (`--overwrite`).
        case overwrite
        /// Leave it and skip the photo (`-n`, `--no-clobber`).
        case skip
    }

    public var existingFiles: ExistingFiles = .refuse
    /// The inputs of the run: never written, whatever the options.
    public var inputs: Set<FileIdentity> = []

    public init(existingFiles: ExistingFiles = .refuse, inputs: Set<FileIdentity> = []) {
        self.existingFiles = existingFiles
        self.inputs = inputs
    }

    /// Throws unless `destination` may be written for a photo read from
    /// `source`; `isMattebox` says whether an existing file is one Mattebox
    /// recorded writing there; `options` names the command's flags in the refusal.
    public func check(
        _ destination: URL, source: URL?,
        options: String = "--overwrite replaces it, -n/--no-clobber skips photos whose outputs exist",
        isMattebox: (URL) -> Bool
    ) throws {
        guard let existing = FileIdentity(destination) else { return }
        if inputs.contains(existing) || source.flatMap(FileIdentity.init) == existing {
            throw MatteboxError(
                "\(destination.path) is an input of this run; an output never replaces an input",
                hint: "choose another output folder with -o")
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: destination.path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw MatteboxError("\(destination.path) is a folder; the output cannot be written there")
        }
        switch existingFiles {
        case .overwrite:
            return
        case .skip:
            throw OutputExists(path: destination.path)
        case .refuse:
            guard !isMattebox(destination) else { return }
            throw MatteboxError("\(destination.path) already exists and Mattebox did not write it", hint: options)
        }
    }
}

/// A photo skipped because its output exists and the user asked not to clobber.
public struct OutputExists: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var description: String { "\(path) exists; skipped (--no-clobber)" }
}

/// Checks an output folder before any work: it exists (or is made, unless
/// `create` is false: a dry run checks its parent instead) and is a folder
/// this process can write in.
public enum OutputFolder {
    public static func prepare(_ url: URL, create: Bool = true) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw MatteboxError("output folder \(url.path) is a file", hint: "give -o a folder")
            }
        } else if !create {
            var parent = url.deletingLastPathComponent()
            while !FileManager.default.fileExists(atPath: parent.path) { parent.deleteLastPathComponent() }
            guard access(parent.path, W_OK | X_OK) == 0 else {
                throw MatteboxError("cannot create the output folder \(url.path): \(parent.path) is not writable")
            }
            return
        } else {
            do {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            } catch {
                throw MatteboxError("cannot create the output folder \(url.path): \(SystemError.describe(error))")
            }
        }
        guard access(url.path, W_OK | X_OK) == 0 else {
            throw MatteboxError("cannot write in the output folder \(url.path): \(SystemError.describe(errno))")
        }
    }
}
