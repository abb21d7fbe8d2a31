import Foundation

/// The photos a session has secured and not yet finished, bounded by memory:
/// each one waiting holds its pixels (width × height × 3 bytes: 3.7 MB at
/// 1280×960) until its turn, so a press is refused only when the next photo
/// would take the queue past its budget, never for being quick. Photos are
/// processed one at a time in press order; the one being processed also
/// holds the pipeline's working memory, which the batch's peak-memory
/// reports measure, and which one photo at a time keeps to one photo's worth.
struct PhotoQueue {
    /// Bytes the photos waiting may hold together.
    let budget: Int
    /// Secured photos not yet finished, in press order, with their bytes.
    private(set) var photos: [(id: Int64, bytes: Int)] = []

    init(budget: Int) { self.budget = max(1, budget) }

    var bytes: Int { photos.reduce(0) { $0 + $1.bytes } }
    var isEmpty: Bool { photos.isEmpty }
    var count: Int { photos.count }

    /// What a photo of this size holds while it waits: its 8-bit RGB pixels.
    static func bytes(for size: FrameSize) -> Int { size.pixels * 3 }

    /// Why a press for a photo of `bytes` must be refused; nil when it fits.
    func refusal(for bytes: Int) -> String? {
        // One photo always fits, whatever its size: a budget below one photo would refuse every press.
        guard !photos.isEmpty, self.bytes + bytes > budget else { return nil }
        return "\(photos.count) photo\(photos.count == 1 ? " is" : "s are") still being processed, holding "
            + "\(Self.mebibytes(self.bytes)) of the \(Self.mebibytes(budget)) queue; the shutter is back when one is finished"
    }

    mutating func admit(_ id: Int64, bytes: Int) { photos.append((id, bytes)) }

    mutating func finish(_ id: Int64) { photos.removeAll { $0.id == id } }

    /// Photos pressed after `id` and not finished: the backlog behind it.
    func waiting(behind id: Int64) -> Int {
        guard let index = photos.firstIndex(where: { $0.id == id }) else { return 0 }
        return photos.count - index - 1
    }

    func status(photoBytes: Int) -> CaptureQueueStatus {
        CaptureQueueStatus(
            photos: photos.count, bytes: bytes, budgetBytes: budget,
            capacity: max(1, budget / max(1, photoBytes)), refusal: refusal(for: photoBytes))
    }

    private static func mebibytes(_ bytes: Int) -> String { String(format: "%.0f MiB", Double(bytes) / 1_048_576) }
}

/// The photo queue as a front end shows it: photos in flight, the memory they
/// hold against the budget, how many photos of the current size the budget
/// holds, and why the shutter is refused when it is.
package struct CaptureQueueStatus: Sendable, Codable, Equatable {
    package var photos: Int
    package var bytes: Int
    package var budgetBytes: Int
    package var capacity: Int
    package var refusal: String?

    package init(photos: Int = 0, bytes: Int = 0, budgetBytes: Int = 0, capacity: Int = 0, refusal: String? = nil) {
        self.photos = photos
        self.bytes = bytes
        self.budgetBytes = budgetBytes
        self.capacity = capacity
        self.refusal = refusal
    }
}

/// A shutter press refused because the photo queue is full (`CaptureQueueStatus.refusal` says why).
package struct ShutterRefused: Error, CustomStringConvertible, Sendable {
    package var reason: String
    package var description: String { "the shutter is refused: \(reason)" }
}
