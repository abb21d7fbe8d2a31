import Foundation
import MatteboxLibrary
import MatteboxTestSupport
import Testing

/// The library lists photos newest first by when each came, not by its last
/// write (issue 46, finding 9): a capture's final replacing its proxy, or any
/// later rewrite, does not move a photo ahead of those taken after it.
@Suite struct LibraryOrderTests {
    @Test func aRewriteKeepsAPhotosPlace() throws {
        let folder = try TestEnvironment.scratchDirectory("library-order")
        let jpeg = try Data(contentsOf: TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/orientation-1.jpg"))
        let library = try PhotoLibrary(folder: folder)
        for (index, name) in ["photo-4.jpg", "photo-5.jpg"].enumerated() {
            let url = folder.appendingPathComponent(name)
            try jpeg.write(to: url)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: Double(index) - 100)], ofItemAtPath: url.path)
            _ = library.items()
        }
        #expect(library.items().map(\.id) == ["photo-5.jpg", "photo-4.jpg"])
        // Photo 4's final replaces it after photo 5 came.
        try (jpeg + Data([0])).write(to: folder.appendingPathComponent("photo-4.jpg"))
        #expect(library.items().map(\.id) == ["photo-5.jpg", "photo-4.jpg"])
        #expect(try PhotoLibrary(folder: folder).items().map(\.id) == ["photo-5.jpg", "photo-4.jpg"], "kept across restarts")
    }
}
