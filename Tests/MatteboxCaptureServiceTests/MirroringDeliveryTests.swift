import Foundation
import MatteboxCapture
import MatteboxCaptureService
import MatteboxCore
import MatteboxImageIO
import MatteboxPipeline
import MatteboxTestSupport
import Testing

/// The composition layer with the real built plugins: a captured photo goes
/// through the pipeline to a file, and a front-camera photo is mirrored in one
/// place only, by the Mirroring plugin (a pipeline's own Mirroring stage,
/// later, has the last word).
@Suite struct MirroringDeliveryTests {
    let folder: URL

    init() throws { folder = try TestEnvironment.scratchDirectory("delivery") }

    func deliver(mirroring: Bool, pipeline: String?) throws -> (image: PixelImage, stages: [String]) {
        var photo = Photo(primary: TestImages.pattern())
        photo.metadata.capture.position = .front
        let captured = CapturedPhoto(
            photo: photo, id: 7, frameSequence: 1, frameTimestamp: 0, pressTime: 0, quality: .speed,
            size: FrameSize(width: 48, height: 32), mirroringRequested: mirroring, cameraPath: "/dev/video0")
        let delivery = try CaptureService.makeDelivery(
            pipeline: pipeline.map { PipelineSource(text: $0, path: "test.yaml") }, registry: BuiltPlugins.registry,
            writer: PhotoWriter(directory: folder, format: .png))
        let delivered = try delivery.deliver(captured) {}
        #expect(delivered.output.lastPathComponent.hasPrefix("capture-") && delivered.output.path.hasSuffix("-7.png"))
        return (try ImageDecoder.decodePhoto(at: delivered.output).primary, delivered.stages.map(\.plugin))
    }

    static func mirrored(_ image: PixelImage) -> PixelImage {
        let result = image.copy()
        let bytes = image.bytesPerRow / image.width
        for y in 0..<image.height {
            for x in 0..<image.width {
                (result.data + (y * image.width + (image.width - 1 - x)) * bytes)
                    .copyMemory(from: image.data + (y * image.width + x) * bytes, byteCount: bytes)
            }
        }
        return result
    }

    @Test func aPhotoAskedToBeMirroredIsMirroredByTheMirroringPlugin() throws {
        let result = try deliver(mirroring: true, pipeline: nil)
        #expect(result.stages == ["org.mattebox.mirroring"])
        #expect(result.image.hasSamePixels(as: Self.mirrored(TestImages.pattern())))
    }

    @Test func aPhotoNotAskedIsLeftAsTheCameraSawIt() throws {
        let result = try deliver(mirroring: false, pipeline: nil)
        #expect(result.stages.isEmpty)
        #expect(result.image.hasSamePixels(as: TestImages.pattern()))
    }

    @Test func aPipelinesOwnMirroringStageHasTheLastWord() throws {
        let natural = "stages:\n  - plugin: org.mattebox.mirroring\n    params: { policy: natural }\n"
        let result = try deliver(mirroring: true, pipeline: natural)
        #expect(result.stages == ["org.mattebox.mirroring", "org.mattebox.mirroring"])
        #expect(result.image.hasSamePixels(as: TestImages.pattern()), "flipped once, then back by the natural policy")
    }
}
