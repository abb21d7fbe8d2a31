import Foundation
import MatteboxBatch
import MatteboxPipeline
import MatteboxTestSupport
import Testing

/// How `mattebox process` turns paths into photos and output names, and how
/// shards split them.
@Suite struct BatchInputsTests {
    let root: URL

    init() throws {
        root = try TestEnvironment.scratchDirectory("inputs")
        for path in [
            "archive/2024/IMG_1.jpg", "archive/2024/IMG_1.HEIC", "archive/2025/trip/IMG_2.png", "archive/notes.txt",
            "archive/.hidden/IMG_3.jpg", "archive/.IMG_4.jpg", "archive/out/old.jpg", "loose/IMG_1.jpg",
        ] {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("x".utf8).write(to: url)
        }
    }

    @Test func foldersAreWalkedAndMirroredFilesKeepTheirNames() {
        let inputs = BatchInputs.collect(
            [root.appendingPathComponent("archive").path, root.appendingPathComponent("loose/IMG_1.jpg").path,
             root.appendingPathComponent("missing.jpg").path],
            outputDirectory: root.appendingPathComponent("archive/out"))
        #expect(inputs.map(\.stem) == ["2024/IMG_1", "2024/IMG_1-2", "2025/trip/IMG_2", "IMG_1", "missing"])
        #expect(inputs[0].url.lastPathComponent == "IMG_1.HEIC")
        #expect(inputs[3].url.path.hasSuffix("loose/IMG_1.jpg"))
    }

    @Test func aPhotoGetsTheMovieWithItsNameEvenWithoutSidecars() throws {
        let folder = root.appendingPathComponent("live")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["IMG_5.HEIC", "IMG_5.MOV", "PXL_6.MP.jpg", "PXL_6.mov", "IMG_7.jpg", "clip.mp4"] {
            try Data("x".utf8).write(to: folder.appendingPathComponent(name))
        }
        for sidecars in [true, false] {
            let inputs = BatchInputs.collect([folder.path], outputDirectory: root.appendingPathComponent("out"), sidecars: sidecars)
            #expect(inputs.map(\.stem) == ["IMG_5", "IMG_7", "PXL_6.MP"], "movies are not photos")
            #expect(inputs.map { $0.movie?.lastPathComponent } == ["IMG_5.MOV", nil, "PXL_6.mov"])
        }
    }

    @Test func shardsSplitABatchIntoDisjointStableParts() throws {
        let inputs = (0..<200).map { BatchInput(url: URL(fileURLWithPath: "/p/\($0).jpg"), stem: "folder/\($0)") }
        let shards = (0..<4).map { BatchShard(index: $0, count: 4) }
        let parts = shards.map { shard in inputs.filter(shard.includes).map(\.stem) }
        #expect(parts.map(\.count).reduce(0, +) == inputs.count)
        #expect(Set(parts.joined()).count == inputs.count)
        #expect(parts.allSatisfy { $0.count > 25 })
        // FNV-1a of the stem, so the split is the same on every machine and run.
        #expect(BatchShard(index: 0, count: 4).includes(BatchInput(url: URL(fileURLWithPath: "/x"), stem: "a")))
        #expect(BatchShard(index: 1, count: 4).includes(BatchInput(url: URL(fileURLWithPath: "/x"), stem: "a")) == false)
        #expect(BatchShard("3/4") == BatchShard(index: 3, count: 4))
        for bad in ["4/4", "-1/4", "1", "a/b", "0/0"] { #expect(BatchShard(bad) == nil) }
    }
}
