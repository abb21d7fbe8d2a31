import Foundation
import MatteboxTestSupport
import Testing

/// Originals are never written and no request is silently ignored: each test
/// is a finding from trying the tool as a new user would.
@Suite struct SafetyTests {
    let folder: URL

    init() throws { folder = try TestEnvironment.scratchDirectory("safety") }

    private func mattebox(_ arguments: String..., environment: [String: String] = [:]) -> TestEnvironment.CommandResult {
        TestEnvironment.run([TestEnvironment.mattebox] + arguments, environment: environment)
    }

    private func photo(_ name: String = "p.jpg") throws -> URL {
        let url = folder.appendingPathComponent(name)
        try FileManager.default.copyItem(
            at: TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/orientation-6.jpg"), to: url)
        return url
    }

    @Test func anOutputFolderThatIsTheInputsFolderNeverReplacesTheInput() throws {
        let input = try photo()
        let before = try Data(contentsOf: input)
        let run = mattebox("process", input.path, "-o", folder.path)
        #expect(run.status == 64, "a usage mistake: \(run.status)")
        #expect(run.errors.contains("would replace an input") && run.errors.contains(input.path), "\(run.errors)")
        #expect(try Data(contentsOf: input) == before)
        // Not even with --overwrite.
        let forced = mattebox("process", input.path, "-o", folder.appendingPathComponent(".").path, "--overwrite")
        #expect(forced.status == 64)
        #expect(try Data(contentsOf: input) == before)
    }

    @Test func specialFilesFailAtOnceSayingWhatTheyAre() throws {
        let fifo = folder.appendingPathComponent("x.heic")
        #expect(mkfifo(fifo.path, 0o644) == 0)
        let device = folder.appendingPathComponent("zero.jpg")
        try FileManager.default.createSymbolicLink(atPath: device.path, withDestinationPath: "/dev/zero")
        let run = mattebox("process", fifo.path, device.path, "-o", folder.appendingPathComponent("out").path, "--timeout", "60")
        #expect(run.status == 1)
        #expect(run.output.contains("\(fifo.path): a named pipe (FIFO), not a photo file"), "\(run.output)")
        #expect(run.output.contains("\(device.path): a character device, not a photo file"), "\(run.output)")
        #expect(!run.output.contains("timed out"))
    }

    @Test func unknownFormatsNeverReachAnotherLoaderAndSayWhatTheyLookLike() throws {
        let raw = folder.appendingPathComponent("IMG_0001.CR3")
        try Data([0, 0, 0, 0x18] + Array("ftypcrx ".utf8) + [0, 0, 0, 1] + Array("crx isom".utf8) + [UInt8](repeating: 0, count: 64))
            .write(to: raw)
        let run = mattebox("process", raw.path, "-o", folder.appendingPathComponent("out").path)
        #expect(run.status == 1)
        #expect(run.output.contains("not an image format Mattebox reads (it looks like a Canon CR3 raw file)"), "\(run.output)")
        #expect(!run.output.lowercased().contains("magick"))
        let inspect = mattebox("inspect", raw.path)
        #expect(inspect.status == 1 && inspect.errors.contains("not a photo or movie Mattebox reads (it looks like a Canon CR3 raw file)"), "\(inspect.errors)")
    }

    @Test func existingFilesAreReplacedOnlyWhenMatteboxWroteThemOrWhenAsked() throws {
        let input = try photo()
        let out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let theirs = out.appendingPathComponent("p.jpg")
        try Data("someone else's file".utf8).write(to: theirs)
        let refused = mattebox("process", input.path, "-o", out.path)
        #expect(refused.status == 1 && refused.output.contains("already exists and Mattebox did not write it"), "\(refused.output)")
        #expect(try String(contentsOf: theirs, encoding: .utf8) == "someone else's file")
        let skipped = mattebox("process", input.path, "-o", out.path, "-n")
        #expect(skipped.status == 0 && skipped.output.contains("1 skipped (output exists)"), "\(skipped.output)")
        #expect(try String(contentsOf: theirs, encoding: .utf8) == "someone else's file")
        // --overwrite replaces only what Mattebox wrote: a file it did not write needs its own option.
        let overwrite = mattebox("process", input.path, "-o", out.path, "--overwrite")
        #expect(overwrite.status == 1 && overwrite.output.contains("--replace-other-files"), "\(overwrite.output)")
        #expect(try String(contentsOf: theirs, encoding: .utf8) == "someone else's file")
        let replaced = mattebox("process", input.path, "-o", out.path, "--replace-other-files")
        #expect(replaced.status == 0, "\(replaced.output)")
        #expect(try Data(contentsOf: theirs).starts(with: [0xFF, 0xD8]))
        // Now the manifest says Mattebox wrote it: a plain rerun may replace it.
        #expect(mattebox("process", input.path, "-o", out.path).status == 0)
    }

    /// Found: a user re-saved an output in another program, and the next run silently replaced the edit.
    @Test func anOutputTheUserChangedIsTheirsUntilOverwriteIsGiven() throws {
        let input = try photo()
        let out = folder.appendingPathComponent("edited")
        #expect(mattebox("process", input.path, "-o", out.path).status == 0)
        let output = out.appendingPathComponent("p.jpg")
        var edited = try Data(contentsOf: output)
        edited.append(contentsOf: Array("edited in another program".utf8))  // after EOI: still a JPEG, other bytes
        try edited.write(to: output)
        let rerun = mattebox("process", input.path, "-o", out.path)
        #expect(rerun.status == 1, "\(rerun.output)")
        #expect(rerun.output.contains("\(output.path) was changed since Mattebox wrote it"), "\(rerun.output)")
        #expect(try Data(contentsOf: output) == edited)
        // --resume and -n keep it too; --overwrite replaces it.
        #expect(mattebox("process", input.path, "-o", out.path, "-n").status == 0)
        #expect(try Data(contentsOf: output) == edited)
        let replaced = mattebox("process", input.path, "-o", out.path, "--overwrite")
        #expect(replaced.status == 0, "\(replaced.output)")
        #expect(try Data(contentsOf: output) != edited)
        // The replacement is Mattebox's again: a plain rerun may write it.
        #expect(mattebox("process", input.path, "-o", out.path).status == 0)
    }

    /// Found: `process a.jpg -o . --format heic --overwrite` replaced an unrelated original `a.heic` beside it.
    @Test func overwriteNeverReplacesAnotherPhotoMatteboxDidNotWrite() throws {
        let input = try photo("a.jpg")
        let original = folder.appendingPathComponent("a.heic")
        let before = Data([0, 0, 0, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8))
        try before.write(to: original)
        let run = mattebox("process", input.path, "-o", folder.path, "--format", "heic", "--overwrite")
        #expect(run.status == 1, "\(run.output)")
        #expect(run.output.contains("\(original.path) already exists and Mattebox did not write it"), "\(run.output)")
        #expect(try Data(contentsOf: original) == before)
    }

    /// Found: a HEIC holding several pictures (a burst), written to JPEG by the default pipeline, lost them with no note.
    @Test func aMultiImageHEICKeepsItsImagesOrNamesThem() throws {
        let frames = try (1...3).map { index -> String in
            let url = folder.appendingPathComponent("frame\(index).jpg")
            try FileManager.default.copyItem(
                at: TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/orientation-\(index).jpg"), to: url)
            return url.path
        }
        let burst = folder.appendingPathComponent("burst.heic")
        let made = TestEnvironment.run(["/usr/bin/heif-enc", "-q", "60"] + frames + ["-o", burst.path])
        #expect(made.status == 0, "\(made.errors)")
        #expect(TestEnvironment.run(["/usr/bin/heif-info", burst.path]).output.components(separatedBy: "image: ").count - 1 == 3)
        // Asked for JPEG: the other pictures are named in a note, counted in the summary.
        let asJPEG = mattebox("process", burst.path, "-o", folder.appendingPathComponent("jpeg").path, "--format", "jpeg")
        #expect(asJPEG.status == 0, "\(asJPEG.output)")
        #expect(asJPEG.output.contains("2 other images of the file") && asJPEG.output.contains("not kept"), "\(asJPEG.output)")
        #expect(asJPEG.output.contains("1 with notes"), "\(asJPEG.output)")
        // By default the output keeps them: HEIC, with all three pictures.
        let byDefault = mattebox("process", burst.path, "-o", folder.appendingPathComponent("default").path)
        #expect(byDefault.status == 0, "\(byDefault.output)")
        let output = folder.appendingPathComponent("default/burst.heic")
        let info = TestEnvironment.run(["/usr/bin/heif-info", output.path]).output
        #expect(info.components(separatedBy: "image: ").count - 1 == 3, "\(info)")
    }

    /// Found: a HEIC whose EXIF is larger than a JPEG APP1 segment (Xiaomi's) failed in the default pipeline.
    @Test func anEXIFTooLargeForJPEGIsWrittenAsHEICByDefault() throws {
        let input = folder.appendingPathComponent("big-exif.heic")
        let made = TestEnvironment.run([
            "/usr/bin/heif-enc", "-q", "60", TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/orientation-1.jpg").path,
            "-o", input.path,
        ])
        #expect(made.status == 0, "\(made.errors)")
        let comment = String(repeating: "Mattebox keeps every byte. ", count: 3000)  // 81,000 bytes
        let tagged = TestEnvironment.run(["/usr/bin/exiftool", "-overwrite_original", "-UserComment=\(comment)", input.path])
        #expect(tagged.status == 0, "\(tagged.errors)")
        let run = mattebox("process", input.path, "-o", folder.appendingPathComponent("big").path)
        #expect(run.status == 0, "\(run.output)")
        let output = folder.appendingPathComponent("big/big-exif.heic")
        let read = TestEnvironment.run(["/usr/bin/exiftool", "-s3", "-UserComment", output.path]).output
        #expect(read.trimmingCharacters(in: .whitespacesAndNewlines) == comment.trimmingCharacters(in: .whitespaces), "the EXIF came through whole")
    }

    /// Found: a TIFF's IPTC and description, and a PNG's comments, were dropped with no note.
    @Test func metadataATIFFOrPNGHoldsBeyondEXIFAndXMPIsNamed() throws {
        let tiff = folder.appendingPathComponent("described.tif")
        let png = folder.appendingPathComponent("commented.png")
        let source = TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/orientation-1.jpg").path
        #expect(TestEnvironment.run(["/usr/bin/vips", "copy", source, tiff.path]).status == 0)
        #expect(TestEnvironment.run(["/usr/bin/vips", "copy", source, png.path]).status == 0)
        #expect(TestEnvironment.run([
            "/usr/bin/exiftool", "-q", "-overwrite_original", "-IPTC:Keywords=harbour", "-ImageDescription=Boats at dawn", tiff.path,
        ]).status == 0)
        #expect(TestEnvironment.run(["/usr/bin/exiftool", "-q", "-overwrite_original", "-PNG:Comment=from the scanner", png.path]).status == 0)
        let run = mattebox("process", tiff.path, png.path, "-o", folder.appendingPathComponent("named").path, "--format", "heic")
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("the IPTC record") && run.output.contains("image-description of the TIFF not kept"), "\(run.output)")
        #expect(run.output.contains("png-comment-0-Comment of the PNG not kept"), "\(run.output)")
        #expect(run.output.contains("2 with notes"), "\(run.output)")
    }

    @Test func whatAFormatCannotHoldIsANoteAndAConflictIsAnError() throws {
        let input = try photo()
        let depth = TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/selfie-front.depth.png")
        let out = folder.appendingPathComponent("out")
        let run = mattebox("process", input.path, "--aux", "depth=\(depth.path)", "--format", "PNG", "-o", out.path, "--json")
        #expect(run.status == 0, "\(run.errors)")
        let report = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
        let notes = (report?["photos"] as? [[String: Any]])?.first?["notes"] as? [String: String]
        #expect(notes?["auxiliaryImages"]?.contains("depth not kept: PNG holds only the primary image") == true, "\(notes ?? [:])")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("p.png").path), "format names in any case")
        let pipeline = TestEnvironment.packageRoot.appendingPathComponent("Samples/pipelines/heif-package.yaml")
        let conflict = mattebox("process", input.path, "--format", "jpg", "--pipeline", pipeline.path, "-o", out.path)
        #expect(conflict.status == 64, "a command-line mistake")
        #expect(conflict.errors.contains("--format jpeg conflicts with the org.mattebox.heif stage at"), "\(conflict.errors)")
    }

    @Test func singleFileOutputsAreCheckedBeforeAnyWork() throws {
        let input = try photo()
        let wrongExtension = mattebox("export", input.path, "-o", folder.appendingPathComponent("x.jpg").path)
        #expect(wrongExtension.status == 64 && wrongExtension.errors.contains("not .jpg"), "\(wrongExtension.errors)")
        let into = folder.appendingPathComponent("exports")
        try FileManager.default.createDirectory(at: into, withIntermediateDirectories: true)
        #expect(mattebox("export", input.path, "-o", into.path + "/").status == 0)
        #expect(FileManager.default.fileExists(atPath: into.appendingPathComponent("p.heic").path))
        // What Mattebox wrote there it may write again; a file it did not write is kept.
        let again = mattebox("export", input.path, "-o", into.appendingPathComponent("p.heic").path)
        #expect(again.status == 0, "\(again.errors)")
        try Data("not Mattebox's".utf8).write(to: into.appendingPathComponent("theirs.heic"))
        let foreign = mattebox("export", input.path, "-o", into.appendingPathComponent("theirs.heic").path)
        #expect(foreign.status == 1 && foreign.errors.contains("already exists"), "\(foreign.errors)")
        #expect(try Data(contentsOf: into.appendingPathComponent("theirs.heic")) == Data("not Mattebox's".utf8))
        let missing = folder.appendingPathComponent("no/such/dir/s.png")
        let sheet = mattebox("inspect", into.appendingPathComponent("p.heic").path, "--sheet", missing.path)
        #expect(sheet.status == 1 && sheet.errors.contains("does not exist"), "\(sheet.errors)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("no").path))
    }

    @Test func standardInputAndOutputStandForOnePhoto() throws {
        let input = try photo()
        let out = folder.appendingPathComponent("from-stdin.jpg")
        let shell = "'\(TestEnvironment.mattebox)' process - -o - < '\(input.path)' > '\(out.path)'"
        let run = TestEnvironment.run(["/bin/sh", "-c", shell])
        #expect(run.status == 0, "\(run.errors)")
        let bytes = try Data(contentsOf: out)
        #expect(bytes.starts(with: [0xFF, 0xD8]) && bytes.count > 1000, "a JPEG on standard output, nothing else")
        let exported = TestEnvironment.run(["/bin/sh", "-c", "'\(TestEnvironment.mattebox)' export '\(input.path)' -o - | head -c 12"])
        #expect(exported.output.contains("ftypheic"))
    }

    @Test func sidecarsAreAttachedNotProcessedAsPhotos() throws {
        let photos = TestEnvironment.packageRoot.appendingPathComponent("Samples/photos")
        let out = folder.appendingPathComponent("out")
        let run = mattebox("process", photos.path, "-o", out.path, "--json")
        #expect(run.status == 0, "\(run.errors)")
        let report = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
        let inputs = (report?["photos"] as? [[String: Any]])?.compactMap { $0["input"] as? String } ?? []
        #expect(!inputs.contains { $0.hasSuffix(".depth.png") || $0.hasSuffix(".portraitMatte.png") }, "\(inputs)")
        // The selfie keeps its depth and matte: the default format for a photo with auxiliary images is HEIF.
        let inspect = mattebox("inspect", out.appendingPathComponent("selfie-front.heic").path, "--json")
        #expect(inspect.output.contains("portraitMatte") && inspect.output.contains("\"depth\""), "\(inspect.output.prefix(400))")
        let plain = mattebox("process", photos.path, "-o", folder.appendingPathComponent("plain").path, "--no-sidecars", "--dry-run")
        #expect(plain.output.contains("selfie-front.depth.png ->"), "\(plain.output)")
    }

    @Test func aDryRunSaysWhatWouldHappenAndWritesNothing() throws {
        let input = try photo()
        let out = folder.appendingPathComponent("planned")
        let run = mattebox("process", input.path, folder.appendingPathComponent("missing.jpg").path, "-o", out.path, "--dry-run")
        #expect(run.status == 1, "a dry run with a refusal exits as the run would: \(run.errors)")
        #expect(run.output.contains("process \(input.path) -> \(out.path)/p.jpg or .heic"), "\(run.output)")
        #expect(run.output.contains("refuse  \(folder.path)/missing.jpg: \(folder.path)/missing.jpg: No such file"), "\(run.output)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
