import Foundation
import MatteboxTestSupport
import Testing

/// What a reliability run found on damaged files, each tried as a user would: a
/// Motion Photo whose movie is damaged keeps its still and says the movie is
/// left out (and its output no longer claims one); a Live Photo's movie that is
/// no movie is not copied as one; libjpeg's terse words come with their meaning;
/// a text file named like a photo is called a text file.
@Suite struct DamagedCompanionTests {
    let folder: URL

    init() throws { folder = try TestEnvironment.scratchDirectory("damaged-companions") }

    func mattebox(_ arguments: [String]) -> TestEnvironment.CommandResult {
        TestEnvironment.run([TestEnvironment.mattebox] + arguments, timeout: 300)
    }

    /// A Motion Photo from the sample replay camera (`capture --live --live-format motion-photo`).
    func motionPhoto(format: String) throws -> URL {
        let out = folder.appendingPathComponent("capture-\(format)")
        let cameras = TestEnvironment.packageRoot.appendingPathComponent("Samples/cameras.yaml").path
        let run = mattebox(["capture", "--cameras", cameras, "--live", "--live-format", "motion-photo", "--format", format, "-o", out.path, "-q"])
        try #require(run.status == 0, "\(run.errors)")
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: out.path).first { $0.contains(".MP.") })
        return out.appendingPathComponent(name)
    }

    @Test(arguments: ["heic", "jpeg"]) func aMotionPhotoWithADamagedMovieKeepsItsStill(format: String) throws {
        let original = try motionPhoto(format: format)
        var bytes = try Data(contentsOf: original)
        bytes.removeLast(bytes.count / 4) // the movie at the end, cut short
        let damaged = folder.appendingPathComponent("damaged-\(format).MP.\(original.pathExtension)")
        try bytes.write(to: damaged)
        let inspect = mattebox(["inspect", damaged.path])
        #expect(inspect.status == 0, "\(inspect.errors)")
        let out = folder.appendingPathComponent("out-\(format)")
        let run = mattebox(["process", damaged.path, "-o", out.path, "--format", "heic"])
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        #expect(run.output.contains("the Motion Photo's movie could not be read") && run.output.contains("the still is kept"), "\(run.output)")
        let written = out.appendingPathComponent(damaged.deletingPathExtension().lastPathComponent + ".heic")
        #expect(TestEnvironment.run(["heif-info", written.path]).status == 0)
        #expect(MovieProbe.exiftool("XMP-GCamera:MotionPhoto", written.path) != "1", "the output claims a movie it does not hold")
    }

    @Test func aLivePhotoMovieThatIsNoMovieIsNotCopiedAndSaysSo() throws {
        let out = folder.appendingPathComponent("live")
        let cameras = TestEnvironment.packageRoot.appendingPathComponent("Samples/cameras.yaml").path
        try #require(mattebox(["capture", "--cameras", cameras, "--live", "-o", out.path, "-q"]).status == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path)
        let movie = out.appendingPathComponent(try #require(names.first { $0.hasSuffix(".mov") }))
        let still = out.appendingPathComponent(try #require(names.first { $0.hasSuffix(".jpg") }))
        var bytes = try Data(contentsOf: movie)
        bytes.replaceSubrange(4..<8, with: Array("xxxx".utf8)) // its first box no longer an ftyp
        try bytes.write(to: movie)
        let copied = folder.appendingPathComponent("live-out")
        let run = mattebox(["process", still.path, "-o", copied.path])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("was not copied") && run.output.contains("QuickTime or MP4"), "\(run.output)")
        #expect(!FileManager.default.fileExists(atPath: copied.appendingPathComponent(movie.lastPathComponent).path))
    }

    @Test func libjpegsWordsComeWithTheirMeaning() throws {
        var bytes = [UInt8](try Data(contentsOf: TestEnvironment.packageRoot.appendingPathComponent("Samples/cameras/astronaut.jpg")))
        let dqt = try #require((0..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDB })
        bytes[dqt + 2] = 0
        bytes[dqt + 3] = 1 // a segment length smaller than its own length field
        let bad = folder.appendingPathComponent("bogus.jpg")
        try Data(bytes).write(to: bad)
        let text = folder.appendingPathComponent("notes.heic")
        try Data("meeting notes, not a photo\n".utf8).write(to: text)
        let run = mattebox(["process", bad.path, text.path, "-o", folder.appendingPathComponent("bad-out").path])
        #expect(run.status == 1)
        #expect(run.output.contains("the JPEG is damaged: a segment's length is impossible (VipsJpeg: Bogus marker length)"), "\(run.output)")
        #expect(run.output.contains("it looks like a text file"), "\(run.output)")
    }
}
