import Foundation
import MatteboxRuntime
import MatteboxTestSupport
import Testing

@Suite struct AtomicFileTests {
    @Test func replacesTheDestinationAndLeavesNoTemporaryFiles() throws {
        let folder = try TestEnvironment.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("nested/out.bin")
        try AtomicFile.write(Data("first".utf8), to: target)
        try AtomicFile.write(Data("second".utf8), to: target)
        #expect(try String(contentsOf: target, encoding: .utf8) == "second")
        let names = try FileManager.default.contentsOfDirectory(atPath: target.deletingLastPathComponent().path)
        #expect(names == ["out.bin"])
    }

    @Test func failsWithThePathWhenTheFolderCannotBeCreated() throws {
        let folder = try TestEnvironment.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let blocker = folder.appendingPathComponent("file")
        try Data().write(to: blocker)
        do {
            try AtomicFile.write(Data("x".utf8), to: blocker.appendingPathComponent("out.jpg"))
            Issue.record("writing under a file succeeded")
        } catch let error as MatteboxError {
            // Human words, naming the folder: no Foundation error dump.
            #expect(error.message.contains(blocker.path), "\(error)")
            #expect(error.message.contains("a file is in the way") || error.message.contains("not a folder"), "\(error)")
            #expect(!error.message.contains("NSCocoaErrorDomain"), "\(error)")
        }
    }
}
