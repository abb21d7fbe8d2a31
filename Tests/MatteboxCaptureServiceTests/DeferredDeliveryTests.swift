import Foundation
import MatteboxCapture
import MatteboxCaptureService
import MatteboxCore
import MatteboxImageIO
import MatteboxPipeline
import MatteboxRuntime
import MatteboxTestSupport
import Testing

/// Deferred processing through the real writer and plugins: the proxy is the
/// photo as taken, the final replaces it only while it is as written, the
/// final copies the proxy's primary, and the record of pending photos
/// survives a kill and refuses what does not belong to the folder.
@Suite struct DeferredDeliveryTests {
    let folder: URL

    init() throws { folder = try TestEnvironment.scratchDirectory("deferred") }

    func delivery(_ pipeline: String? = "stages:\n  - plugin: org.mattebox.samples.invert\n", format: OutputFormat = .heic) throws
        -> PipelineDelivery
    {
        try CaptureService.makeDelivery(
            pipeline: pipeline.map { PipelineSource(text: $0, path: "test.yaml") }, registry: BuiltPlugins.registry,
            writer: PhotoWriter(directory: folder, format: format))
    }

    func captured(id: Int64 = 3) -> CapturedPhoto {
        CapturedPhoto(
            photo: Photo(primary: TestImages.pattern(width: 64, height: 48)), id: id, frameSequence: 1, frameTimestamp: 0,
            pressTime: 0, quality: .balanced, size: FrameSize(width: 64, height: 48), cameraPath: "/dev/video0")
    }

    @Test func theProxyIsThePhotoAsTakenAndTheFinalReplacesIt() throws {
        let delivery = try delivery(nil)
        let proxy = try delivery.writeProxy(captured())
        #expect(delivery.pendingProxies() == [proxy.output])
        let asTaken = try ImageDecoder.decodePhoto(at: proxy.output).primary
        let delivered = try delivery.finish(proxy) {}
        #expect(delivered.output == proxy.output && delivery.pendingProxies().isEmpty)
        // Nothing changed the primary: the final holds the proxy's coded primary, not a second encoding.
        #expect(try ImageDecoder.decodePhoto(at: delivered.output).primary.hasSamePixels(as: asTaken))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(PendingCaptures.fileName).path))
    }

    @Test func aProxyTheUserChangedOrDeletedIsNotReplaced() throws {
        let delivery = try delivery()
        let changed = try delivery.writeProxy(captured(id: 4))
        try Data("the user's own file".utf8).write(to: changed.output)
        #expect(throws: MatteboxError.self) { try delivery.finish(changed) {} }
        #expect(try String(contentsOf: changed.output, encoding: .utf8) == "the user's own file")

        let deleted = try delivery.writeProxy(captured(id: 5))
        try FileManager.default.removeItem(at: deleted.output)
        #expect { try delivery.finish(deleted) {} } throws: { "\($0)".contains("was removed before its processing finished") }
        #expect(!FileManager.default.fileExists(atPath: deleted.output.path))
    }

    @Test func theRecordSurvivesAKillAndNamesOnlyFilesInItsFolder() throws {
        let first = try delivery()
        let proxy = try first.writeProxy(captured(id: 6))
        // Killed here. Lines a damaged or hostile record could hold are ignored, a torn last line too.
        let record = folder.appendingPathComponent(PendingCaptures.fileName)
        let handle = try FileHandle(forWritingTo: record)
        handle.seekToEndOfFile()
        let hostile = #"{"proxy":"../outside.heic","context":{},"skippedRoles":[],"skipReason":"","cameraPath":"x","width":1,"height":1}"#
        handle.write(Data((hostile + "\n" + #"{"proxy":"capture-never-written.heic","con"#).utf8))
        try handle.close()
        let next = try delivery()
        #expect(next.pendingProxies() == [proxy.output], "only the proxy that is there, in this folder")
        let delivered = try next.finishPending(proxy.output) {}
        #expect(delivered.stages.map(\.plugin) == ["org.mattebox.samples.invert"])
        #expect(next.pendingProxies().isEmpty && !FileManager.default.fileExists(atPath: record.path))
    }
}
