import Foundation
import MatteboxBatch
import MatteboxPipeline
import MatteboxRuntime
import MatteboxTestSupport
import Testing

/// The resume manifest read back as a killed, corrupted or hostile run may have
/// left it: torn and garbage lines are ignored, an entry naming a file outside
/// the output folder never lets `--resume` skip a photo, and an output cut
/// short since it was written is done again.
@Suite struct ResumeManifestTests {
    let folder: URL
    let output: URL
    let input: BatchInput

    init() throws {
        folder = try TestEnvironment.scratchDirectory("manifest")
        output = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let photo = folder.appendingPathComponent("a.jpg")
        try Data("the photo".utf8).write(to: photo)
        input = BatchInput(url: photo, stem: "a")
    }

    func manifestLines(_ lines: [String]) throws {
        try (lines.joined(separator: "\n")).write(
            to: output.appendingPathComponent("\(ResumeManifest.filePrefix).jsonl"), atomically: true, encoding: .utf8)
    }

    func entry(outputs: [String]) throws -> String {
        let entry = ResumeManifest.Entry(
            stem: "a", inputSHA256: try ContentHash.sha256(photoAt: input.url, sidecars: [:]), pipelineSHA256: "p", outputs: outputs)
        return String(decoding: try JSONEncoder().encode(entry), as: UTF8.self)
    }

    @Test func garbageAndTornLinesAreIgnoredAndAGoodEntryStillCounts() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("done".utf8).write(to: output.appendingPathComponent("a.jpg"))
        try manifestLines(["not json at all", "{\"stem\": 5}", "\u{0}\u{1}\u{2}", try entry(outputs: ["a.jpg"]), "{\"stem\":\"a\",\"inputSHA2"])
        let manifest = ResumeManifest(outputDirectory: output, shard: nil)
        let (queue, skipped) = manifest.partition([input], pipelineSHA256: "p")
        #expect(queue.isEmpty && skipped["a"] != nil, "the complete entry lets --resume skip the photo")
        #expect(manifest.ownership(of: output.appendingPathComponent("a.jpg")) == .mattebox)
        #expect(manifest.ownership(of: output.appendingPathComponent("other.jpg")) == .unlisted)
    }

    @Test func anEntryNamingAFileOutsideTheOutputFolderIsNeverDone() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // The file exists, but outside: a corrupted or hostile manifest must not make --resume skip the photo.
        try Data("elsewhere".utf8).write(to: folder.appendingPathComponent("outside.jpg"))
        for escaping in ["../outside.jpg", folder.appendingPathComponent("outside.jpg").path, "sub/../../outside.jpg"] {
            try manifestLines([try entry(outputs: [escaping])])
            let (queue, skipped) = ResumeManifest(outputDirectory: output, shard: nil).partition([input], pipelineSHA256: "p")
            #expect(queue == [input] && skipped.isEmpty, "\(escaping) counted as this photo's output")
        }
    }

    @Test func anOutputCutShortSinceItWasWrittenIsDoneAgain() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = ResumeManifest(outputDirectory: output, shard: nil)
        let data = Data(repeating: 7, count: 1000)
        try manifest.recordWriting(data, at: output.appendingPathComponent("a.jpg"))
        try data.prefix(400).write(to: output.appendingPathComponent("a.jpg"))
        try manifest.record(ResumeManifest.Entry(
            stem: "a", inputSHA256: try ContentHash.sha256(photoAt: input.url, sidecars: [:]), pipelineSHA256: "p", outputs: ["a.jpg"]))
        let (queue, _) = ResumeManifest(outputDirectory: output, shard: nil).partition([input], pipelineSHA256: "p")
        #expect(queue == [input])
        #expect(ResumeManifest(outputDirectory: output, shard: nil).ownership(of: output.appendingPathComponent("a.jpg")) == .changedSinceWritten)
    }

    @Test func aLineAppendedAfterATornOneIsKept() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // A run killed mid-line left no line end: the next run's record must not be glued to it.
        try manifestLines(["{\"stem\":\"a\",\"inputSHA2"])
        try Data("done".utf8).write(to: output.appendingPathComponent("a.jpg"))
        try ResumeManifest(outputDirectory: output, shard: nil).record(
            ResumeManifest.Entry(stem: "a", inputSHA256: try ContentHash.sha256(photoAt: input.url, sidecars: [:]), pipelineSHA256: "p", outputs: ["a.jpg"]))
        let (queue, skipped) = ResumeManifest(outputDirectory: output, shard: nil).partition([input], pipelineSHA256: "p")
        #expect(queue.isEmpty && skipped["a"] != nil, "the entry written after the torn line counts")
    }

    /// Issue 57 (12): a file recorded as about to be written that never reached the folder (a full disk)
    /// is taken back, in this run and for the next one that reads the manifest.
    @Test func aWriteThatNeverHappenedIsWithdrawn() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = ResumeManifest(outputDirectory: output, shard: nil)
        let file = output.appendingPathComponent("a.heic")
        try manifest.recordWriting(Data("the output".utf8), at: file)
        #expect(manifest.lists(file))
        manifest.withdrawWriting(Data("the output".utf8), at: file)
        #expect(!manifest.lists(file), "a file that was never written is not Mattebox's")
        #expect(!ResumeManifest(outputDirectory: output, shard: nil).lists(file), "the next run reads the withdrawal")
        // A version that was written stays listed when another one is withdrawn.
        try manifest.recordWriting(Data("first".utf8), at: file)
        try manifest.recordWriting(Data("second".utf8), at: file)
        manifest.withdrawWriting(Data("second".utf8), at: file)
        #expect(ResumeManifest(outputDirectory: output, shard: nil).lists(file))
    }
}
