import Foundation

/// The process's resident-memory high-water mark, per step of a photo's
/// work: reset before a step, read after it, so `process --timings` and the
/// JSON report say what decoding, each stage and the encode needed. Linux's
/// own counter (`VmHWM`, reset through `/proc/self/clear_refs`); nil where
/// it cannot be read or reset. Threads that overlap a step (the primary
/// encoded ahead) count in it, as the memory a machine must hold.
package enum PeakMemory {
    /// Starts a new step: the mark drops to what is resident now.
    /// False when the kernel does not let the mark be reset.
    @discardableResult
    package static func reset() -> Bool {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }

    /// The mark since the last `reset`, in MiB.
    package static func mebibytes() -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kib = line.dropFirst(6).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Double($0) }
            return kib.map { $0 / 1024 }
        }
        return nil
    }
}
