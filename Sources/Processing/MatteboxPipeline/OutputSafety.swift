import Foundation
import MatteboxRuntime

/// What a writer may put where: an output never replaces an input (named by
/// its identity, so a link or another route to the same file is caught), and
/// an existing file is replaced only when Mattebox wrote it there itself and
/// nobody changed it since (the output folder's manifest says so). `--overwrite`
/// also replaces earlier outputs the user changed; a file the manifest does not
/// list (another photo, such as the original `a.heic` beside `a.jpg`) only with
/// `--replace-other-files`. `--no-clobber` skips photos whose outputs exist.
package struct OutputSafety: Sendable, Codable {
    package enum ExistingFiles: String, Sendable, Codable {
        /// Fail the photo, naming the file (the default).
        case refuse
        /// Replace earlier outputs, even those changed since (`--overwrite`); still refuse unlisted files.
        case overwrite
        /// Replace any file but an input (`--replace-other-files`; single-file commands' `--overwrite`).
        case replaceAny
        /// Leave it and skip the photo (`-n`, `--no-clobber`).
        case skip
    }

    package var existingFiles: ExistingFiles = .refuse
    /// The inputs of the run: never written, whatever the options.
    package var inputs: Set<FileIdentity> = []

    package init(existingFiles: ExistingFiles = .refuse, inputs: Set<FileIdentity> = []) {
        self.existingFiles = existingFiles
        self.inputs = inputs
    }

    /// Throws unless `destination` may be written for a photo read from
    /// `source`; `ownership` says whose an existing file is (the manifest's
    /// word); `replacing` names the flag that replaces someone else's file and
    /// `options` the command's other choices, in the refusal.
    package func check(
        _ destination: URL, source: URL?, replacing: String = "--replace-other-files",
        options: String = "-n/--no-clobber skips photos whose outputs exist; or choose another output folder with -o",
        ownership: (URL) -> ResumeManifest.Ownership
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
        switch (existingFiles, ownership(destination)) {
        case (.replaceAny, _), (.overwrite, .mattebox), (.overwrite, .changedSinceWritten), (.refuse, .mattebox):
            return
        case (.skip, _):
            throw OutputExists(path: destination.path)
        case (.refuse, .changedSinceWritten):
            throw MatteboxError(
                "\(destination.path) was changed since Mattebox wrote it, so it is yours now and is kept",
                hint: "--overwrite replaces it; " + options)
        case (.refuse, .unlisted), (.overwrite, .unlisted):
            throw MatteboxError(
                "\(destination.path) already exists and Mattebox did not write it, so it is kept"
                    + (existingFiles == .overwrite ? " (--overwrite replaces only files Mattebox wrote)" : ""),
                hint: "\(replacing) replaces it; " + options)
        }
    }
}

/// A photo skipped because its output exists and the user asked not to clobber.
package struct OutputExists: Error, Sendable, CustomStringConvertible {
    package var path: String
    package init(path: String) { self.path = path }
    package var description: String { "\(path) exists; skipped (--no-clobber)" }
}

/// Checks an output folder before any work: it exists (or is made, unless
/// `create` is false: a dry run checks its parent instead) and is a folder
/// this process can write in.
package enum OutputFolder {
    package static func prepare(_ url: URL, create: Bool = true) throws {
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
