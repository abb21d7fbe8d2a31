import Foundation
import MatteboxMovie
import MatteboxRuntime

/// The movie half of a Live Photo: about 1.5 s before the shutter and 1.5 s
/// after, written as a QuickTime movie that carries the pairing Apple's Photos
/// reads — the same content identifier as the still (the `mdta` key
/// `com.apple.quicktime.content.identifier` in the movie's metadata) and the
/// still's moment (`StillImageTimeTrack`).
package enum LivePhotoMovie {
    /// What was written.
    package struct Written: Sendable {
        package var path: String
        package var frames: Int
        package var duration: Double
        /// Seconds from the movie's start to the still's frame.
        package var stillTime: Double
    }

    /// Encodes `frames` (capture order) to `path`, which must not exist; the file appears whole or not at all.
    package static func write(
        frames: [MovieFrame], stillTimestamp: UInt64, contentIdentifier: String, format: MovieFormat, settings: MovieSettings,
        to path: String
    ) throws -> Written {
        guard let first = frames.first, let last = frames.last else {
            throw MatteboxError("\(path): no frames for the Live Photo movie")
        }
        guard !FileManager.default.fileExists(atPath: path) else {
            throw MatteboxError("\(path) already exists; a Live Photo movie never replaces a file")
        }
        let destination = URL(fileURLWithPath: path)
        let temporary = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).encoding").path
        defer { unlink(temporary) }
        var movieSettings = settings
        movieSettings.container = .mov
        let writer = try MovieWriter(
            path: temporary, format: format, settings: movieSettings, fragmented: false,
            metadata: [(MovieInspector.contentIdentifierKey, contentIdentifier)])
        for frame in frames { try writer.append(frame) }
        let count = writer.frameCount
        try writer.finish()
        let stillTime = Double(stillTimestamp &- first.timestamp) / 1e9
        let encoded: [UInt8]
        do {
            encoded = Array(try Data(contentsOf: URL(fileURLWithPath: temporary)))
        } catch {
            throw MatteboxError("cannot read back \(temporary): \(SystemError.describe(error))")
        }
        let marked = try StillImageTimeTrack.adding(to: encoded, stillAt: stillTime, path: path)
        try AtomicFile.write(Data(marked), to: destination)
        return Written(path: path, frames: count, duration: Double(last.timestamp - first.timestamp) / 1e9, stillTime: stillTime)
    }
}
