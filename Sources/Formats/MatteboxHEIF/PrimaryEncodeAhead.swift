import Foundation
import MatteboxCore
import MatteboxRuntime
import Synchronization

/// The primary's encode (and its thumbnail), started on its own thread
/// once no later stage will change the primary's pixels, so it runs while the
/// matte stages still compute. The writer takes it only when the pixels and
/// the encoder settings are still those it was started with (a stage that
/// wrote into the primary after all, or changed the quality or preset, makes
/// the writer encode again), so the file is byte for byte what encoding at
/// the end would have written.
package final class PrimaryEncodeAhead: Sendable {
    typealias Coded = (image: CodedItem, thumbnail: CodedItem?)

    private let fingerprint: PixelFingerprint
    private let settings: ItemCodecSettings
    private let codec: String
    private let finished = DispatchGroup()
    private let outcome = Mutex<Result<Coded, any Error>?>(nil)

    /// Starts encoding `photo`'s primary as `HEIFWriter` would with `options`;
    /// nil when the writer would not encode it (copied unchanged from a HEIF
    /// input, or pixels HEVC cannot take).
    package init?(_ photo: Photo, options: HEIFWriteOptions) {
        guard let (pixels, settings) = HEIFWriter.primaryEncoding(of: photo, options: options) else { return nil }
        fingerprint = PixelFingerprint(photo.primary)
        self.settings = settings
        let codec = options.codec
        self.codec = codec.itemType
        finished.enter()
        let thread = Thread {
            let result = Result { try codec.encode(pixels, settings: settings) }
            self.outcome.withLock { $0 = result.map { ($0.image, $0.thumbnail) } }
            self.finished.leave()
        }
        thread.name = "mattebox: primary encode ahead"
        thread.start()
    }

    /// Waits for the encode; its result when `primary` and `settings` are
    /// those it started with, else nil (encode again).
    func coded(primary: PixelImage, settings: ItemCodecSettings, codec: any ItemCodec) -> Coded? {
        finished.wait()
        guard settings == self.settings, codec.itemType == self.codec, PixelFingerprint(primary) == fingerprint else {
            Log.emit(.debug, "the primary encoded ahead is stale (its pixels, codec or encoder settings changed); encoding it again")
            return nil
        }
        return outcome.withLock { try? $0?.get() }
    }

    /// Waits until the encoding thread has finished (nothing of it runs on after a photo).
    package func wait() { finished.wait() }
}
