import Foundation

/// The emulated cameras' own record of every frame they completed, for tests
/// that check a photo's frame against the device rather than against what
/// the session says: with `MATTEBOX_EMULATED_FRAME_LOG` set to a file, each
/// completed frame appends "card sequence timestamp-ns" (CLOCK_MONOTONIC,
/// the timestamp the buffer carries).
enum EmulatedFrameLog {
    private static let handle: FileHandle? = {
        guard let path = ProcessInfo.processInfo.environment["MATTEBOX_EMULATED_FRAME_LOG"], !path.isEmpty else { return nil }
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        return descriptor >= 0 ? FileHandle(fileDescriptor: descriptor, closeOnDealloc: true) : nil
    }()

    /// Called under the device's lock, so lines never interleave.
    static func record(card: String, sequence: UInt32, timestamp: UInt64) {
        guard let handle else { return }
        handle.write(Data("\(card.replacingOccurrences(of: " ", with: "_")) \(sequence) \(timestamp)\n".utf8))
    }
}
