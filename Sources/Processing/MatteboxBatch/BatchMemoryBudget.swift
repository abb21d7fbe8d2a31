import Foundation
import MatteboxImageIO
import MatteboxRuntime

/// How much memory a batch's photos may hold at once, so it admits photos by memory and not only
/// by `-j`: each photo's worker is estimated from its picture size, the batch's own process and
/// (with several workers) the inference process they share are set aside first, and a photo waits
/// while those in flight and it would pass the budget (one photo always runs). Why it exists: a
/// small board given `-j 4` (or its core count) on 12 MP photos runs out of memory; the default
/// follows what the machine has available when the batch starts.
package struct BatchMemoryBudget: Sendable, Equatable {
    package var bytes: Int
    /// Whether the budget is the machine's default (else the user's `--memory-budget`).
    package var isDefault: Bool

    // Measured with `make bench-mattes` (12 MP portraits through the portrait and semantic mattes
    // and HEIF, release build): a worker peaks at 350 MiB, of which x265 alone is 162 MiB, libheif's
    // colour conversion 58 and the decoded picture 37 (heaptrack); an encode-only worker at 307 MiB;
    // the inference process at 440 MiB with MODNet (222 MiB of buffers), the face parser and the
    // face models loaded; the batch's own process at 70 MiB.
    static let workerBase = 80 << 20
    static let workerBytesPerPixel = 24
    static let inferenceProcess = 450 << 20
    static let batchProcess = 70 << 20
    /// Taken for a photo whose picture size its header does not tell: 12 MP.
    static let unknownPixels = 12_000_000

    package init(bytes: Int, isDefault: Bool = false) {
        (self.bytes, self.isDefault) = (bytes, isDefault)
    }

    /// Four fifths of what the machine has available now (`MemAvailable`), nil where that cannot be read.
    package static func machineDefault(meminfo: String? = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) -> BatchMemoryBudget? {
        guard let line = meminfo?.split(separator: "\n").first(where: { $0.hasPrefix("MemAvailable:") }),
            let kib = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }), kib > 0
        else { return nil }
        return BatchMemoryBudget(bytes: kib * 1024 / 5 * 4, isDefault: true)
    }

    /// `--memory-budget`: a size in bytes with an optional K, M, G or T (powers of 1024; "1.5G",
    /// "900M", "2GiB"), or "none" for no budget (nil). Throws naming what is wrong.
    package static func parse(_ text: String) throws(MatteboxError) -> BatchMemoryBudget? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).uppercased()
        if trimmed == "NONE" { return nil }
        var number = Substring(trimmed)
        for suffix in ["IB", "B"] where number.hasSuffix(suffix) {
            number = number.dropLast(suffix.count)
            break
        }
        var scale = 1.0
        if let unit = number.last, let power = "KMGT".firstIndex(of: unit) {
            scale = pow(1024, Double("KMGT".distance(from: "KMGT".startIndex, to: power) + 1))
            number = number.dropLast()
        }
        guard let value = Double(number.trimmingCharacters(in: .whitespaces)), value.isFinite, value > 0, value * scale < 1e18 else {
            throw MatteboxError("--memory-budget \"\(text)\" is not a size: give bytes with K, M, G or T (\"1.5G\", \"900M\"), or none", commandLineMistake: true)
        }
        return BatchMemoryBudget(bytes: Int(value * scale))
    }

    /// The estimated peak of one photo's worker, from its picture's pixel count (nil: unknown).
    package static func workerCost(pixels: Int?) -> Int {
        workerBase + workerBytesPerPixel * (pixels ?? unknownPixels)
    }

    /// The estimated peak of `input`'s worker, from its picture's size as its header says.
    package static func workerCost(of input: BatchInput) -> Int {
        workerCost(pixels: ImageDecoder.pictureSize(at: input.url).map { $0.width * $0.height })
    }

    /// What is left for the workers: the budget less the batch's own process and, when several
    /// workers share one, the inference process.
    package func forWorkers(sharedInference: Bool) -> Int {
        bytes - Self.batchProcess - (sharedInference ? Self.inferenceProcess : 0)
    }

    /// How many workers to start for `queue` when `asked` for: as many as the budget holds for the
    /// largest of its first photos (one worker runs its networks in its own process and encodes
    /// ahead, which beats two workers the budget lets run only one at a time), saying so when that
    /// is fewer. Larger photos later in the queue are held back as they come.
    package func workers(for queue: [BatchInput], asked: Int, sample: Int = 8) -> Int {
        guard asked > 1, queue.count > 1 else { return asked }
        let largest = queue.prefix(sample).map(Self.workerCost(of:)).max() ?? Self.workerCost(pixels: nil)
        let fit = max(1, forWorkers(sharedInference: true) / largest)
        guard fit < min(asked, queue.count) else { return asked }
        let workers = fit < 2 ? 1 : fit
        Log.emit(.warning, "memory budget \(Self.describe(bytes))\(isDefault ? " (four fifths of what the machine has available)" : ""): "
            + "\(workers) photo(s) at once, not \(asked) (each about \(Self.describe(largest)), and \(Self.describe(Self.batchProcess + Self.inferenceProcess)) "
            + "for the batch and its inference process); --memory-budget sets the budget")
        return workers
    }

    /// "1.2 GiB", "900 MiB".
    package static func describe(_ bytes: Int) -> String {
        bytes >= 1 << 30 ? String(format: "%.1f GiB", Double(bytes) / Double(1 << 30)) : "\(bytes >> 20) MiB"
    }
}
