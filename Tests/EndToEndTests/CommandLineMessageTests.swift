import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxTestSupport
import Testing

/// What a newcomer types and reads: command-line mistakes exit 64 with a
/// message that says what to do, `-q` prints nothing but errors, named
/// pipelines can be listed and shown, and a parameter can be set inline.
@Suite struct CommandLineMessageTests {
    let folder: URL
    let photo: String

    init() throws {
        folder = try TestEnvironment.scratchDirectory("cli-messages")
        photo = TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/orientation-6.jpg").path
    }

    private func mattebox(_ arguments: String...) -> TestEnvironment.CommandResult {
        TestEnvironment.run([TestEnvironment.mattebox] + arguments)
    }

    private var output: String { folder.appendingPathComponent("out-\(UUID().uuidString.prefix(6))").path }

    @Test func commandLineMistakesExit64AndSayWhatToDo() {
        let cases: [([String], String)] = [
            (["--pipeline", "portrait-matts"], "did you mean `portrait-mattes`?"),
            (["--pipeline", "portrait-mattes", "--format", "png"], "add --aux-png"),
            (["--pipeline", "portrait-mattes", "--set", "portrait-mate.effort=quality"], "did you mean `portrait-matte`?"),
            (["--pipeline", "portrait-mattes", "--set", "portrait-matte.efort=quality"], "did you mean `effort`?"),
            (["--pipeline", "portrait-mattes", "--set", "portrait-matte.effort=bogus"], "expected one of auto, speed, balanced, quality"),
            (["--pipeline", "portrait-mattes", "--set", "effort"], "expected STAGE.KEY=VALUE"),
        ]
        for (arguments, says) in cases {
            let result = TestEnvironment.run([TestEnvironment.mattebox, "process", photo, "-o", output] + arguments)
            #expect(result.status == 64, "\(arguments): exit \(result.status)")
            #expect(result.errors.contains(says), "\(arguments): \(result.errors)")
        }
    }

    @Test func aBrokenPipelineFileExits64NamingItsLine() throws {
        let file = folder.appendingPathComponent("typo.yaml")
        try "stages:\n  - plugin: org.mattebox.orientaton\n".write(to: file, atomically: true, encoding: .utf8)
        let result = mattebox("process", photo, "-o", output, "--pipeline", file.path)
        #expect(result.status == 64)
        #expect(result.errors.contains("typo.yaml:2: unknown plugin `org.mattebox.orientaton`; did you mean `org.mattebox.orientation`?"))
    }

    @Test func aSetParameterReachesTheStageAndTheFingerprint() throws {
        let out = output
        let quality = mattebox("process", photo, "-o", out, "--pipeline", "heif-package", "--set", "heif.quality=30", "--json")
        #expect(quality.status == 0, "\(quality.errors)")
        let low = try Data(contentsOf: URL(fileURLWithPath: out + "/orientation-6.heic"))
        let other = output
        #expect(mattebox("process", photo, "-o", other, "--pipeline", "heif-package", "--set", "heif.quality=95").status == 0)
        let high = try Data(contentsOf: URL(fileURLWithPath: other + "/orientation-6.heic"))
        #expect(low.count < high.count, "quality 30 wrote \(low.count) bytes, quality 95 \(high.count)")
        // The same folder with another setting is not "already done".
        let again = mattebox("process", photo, "-o", out, "--pipeline", "heif-package", "--set", "heif.quality=95", "--resume", "--overwrite")
        #expect(again.status == 0 && !again.output.contains("already done"), "\(again.output)")
    }

    @Test func quietPrintsNothingButErrors() throws {
        let fine = mattebox("process", photo, "-o", output, "-q")
        #expect(fine.status == 0)
        #expect(fine.output.isEmpty && fine.errors.isEmpty, "out: \(fine.output) err: \(fine.errors)")
        let broken = folder.appendingPathComponent("broken.jpg")
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 16]).write(to: broken)
        let failing = mattebox("process", broken.path, "-o", output, "-q")
        #expect(failing.status == 1)
        #expect((failing.output + failing.errors).contains("broken.jpg"), "a failure is still said under -q")
    }

    @Test func anAttachedJobCountIsAccepted() {
        let result = mattebox("process", photo, "-o", output, "-j1", "--json")
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("\"jobs\" : 1"), "\(result.output)")
    }

    @Test func namedPipelinesAreListedAndShown() {
        let list = mattebox("pipeline", "list")
        #expect(list.status == 0)
        #expect(list.output.contains("portrait-mattes  Portrait matte, hair/skin/teeth mattes, a sky matte and HEIF packaging."), "\(list.output)")
        let show = mattebox("pipeline", "show", "portrait-mattes")
        #expect(show.status == 0)
        #expect(show.output.contains("portrait-mattes.yaml") && show.output.contains("plugin: org.mattebox.semantic-mattes"))
    }

    @Test func aLibraryThatIsNotAPluginIsListedOnlyWhenAskedFor() {
        let plain = mattebox("plugins", "list")
        #expect(!plain.output.contains("rejected: ") || !plain.output.contains("libMatteboxCVision"), "\(plain.output)")
        #expect(plain.output.contains("not a plugin; -v lists them"))
        let verbose = mattebox("plugins", "list", "-v")
        #expect(verbose.output.contains("libMatteboxCVision.so"))
    }

    /// Issue 57 (11): a contact sheet of one region at every image's own resolution, to judge a 12 MP
    /// photo's matte edges; a region outside the photo or written wrong is refused.
    @Test func aSheetOfOneRegionIsDrawnAtFullSize() throws {
        let export = folder.appendingPathComponent("selfie.heic")
        let samples = TestEnvironment.packageRoot.appendingPathComponent("Samples/photos")
        #expect(mattebox("export", samples.appendingPathComponent("selfie-front.jpg").path, "-o", export.path,
                         "--portrait-matte", samples.appendingPathComponent("selfie-front.portraitMatte.png").path).status == 0)
        func width(_ crop: String?) -> Int {
            let sheet = folder.appendingPathComponent("sheet-\(crop ?? "whole").png")
            let run = TestEnvironment.run([TestEnvironment.mattebox, "inspect", export.path, "--sheet", sheet.path] + (crop.map { ["--sheet-crop", $0] } ?? []))
            #expect(run.status == 0, "\(run.errors)")
            return Int(TestEnvironment.run(["/usr/bin/vipsheader", "-f", "width", sheet.path]).output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }
        // Tiles at the crop's own size (the whole 96x64 photo, then 40x30 of it), not the 240 px rows of a whole sheet.
        let (whole, full, part) = (width(nil), width("0,0,96x64"), width("10,5,40x30"))
        #expect(part < full && full < whole, "sheet widths \(part), \(full), \(whole)")
        #expect(mattebox("inspect", export.path, "--sheet", folder.appendingPathComponent("x.png").path, "--sheet-crop", "5000,5,40x30").status != 0)
        #expect(mattebox("inspect", export.path, "--sheet", folder.appendingPathComponent("y.png").path, "--sheet-crop", "nonsense").status == 64)
    }

    @Test func inspectShowsWhatAJPEGOrPNGHolds() throws {
        let jpeg = mattebox("inspect", photo)
        #expect(jpeg.status == 0, "\(jpeg.errors)")
        for line in ["(2068 bytes; JPEG)", "primary: 64x96, 8-bit colour", "orientation: 6", "colour: no ICC profile",
                     "EXIF: 364 bytes, Mattebox Sample pattern", "Orientation tag 6, has GPS location", "XMP: none",
                     "auxiliary images: none"] {
            #expect(jpeg.output.contains(line), "\(line) not in \(jpeg.output)")
        }
        // A PNG with an ICC profile (libvips's built-in sRGB), read back as JSON.
        let png = folder.appendingPathComponent("icc.png")
        let made = TestEnvironment.run(["/usr/bin/vips", "icc_transform", photo, "\(png.path)[profile=srgb]", "srgb", "--input-profile", "srgb"])
        #expect(made.status == 0, "\(made.errors)")
        let report = try JSONSerialization.jsonObject(with: Data(mattebox("inspect", png.path, "--json").output.utf8)) as? [String: Any]
        #expect(report?["format"] as? String == "PNG")
        #expect((report?["iccProfileBytes"] as? Int ?? 0) > 1000, "\(report ?? [:])")
        #expect(report?["width"] as? Int == 64 && report?["height"] as? Int == 96)
    }

    @Test func theSampleFrontCameraShowsAPersonSoCaptureMakesMattes() throws {
        let out = output
        let cameras = TestEnvironment.packageRoot.appendingPathComponent("Samples/cameras.yaml").path
        let run = mattebox("capture", "--cameras", cameras, "--front", "--pipeline", "portrait-mattes", "-o", out, "--json")
        #expect(run.status == 0, "\(run.errors)")
        let report = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
        let shot = try #require((report?["photos"] as? [[String: Any]])?.first)
        let inspected = mattebox("inspect", try #require(shot["output"] as? String), "--json")
        let listing = try JSONSerialization.jsonObject(with: Data(inspected.output.utf8)) as? [String: Any]
        let roles = Set(((listing?["auxiliary"] as? [[String: Any]]) ?? []).compactMap { $0["role"] as? String })
        #expect(roles.isSuperset(of: ["portraitMatte", "hairMatte", "skinMatte"]), "\(roles); notes: \(shot["notes"] ?? "")")
    }

    @Test func captureTakesASizeAndExposureFlagsAsRpicamStillDoes() throws {
        let cameras = TestEnvironment.packageRoot.appendingPathComponent("Samples/cameras.yaml").path
        func shoot(_ extra: [String]) throws -> (width: Int, mean: Double) {
            let out = output
            let run = TestEnvironment.run([TestEnvironment.mattebox, "capture", "--cameras", cameras, "-o", out, "--json", "--format", "png"] + extra)
            #expect(run.status == 0, "\(extra): \(run.errors)")
            let report = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
            let shot = try #require((report?["photos"] as? [[String: Any]])?.first)
            let stats = TestEnvironment.run(["/usr/bin/vips", "avg", try #require(shot["output"] as? String)])
            return (shot["width"] as? Int ?? 0, Double(stats.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1)
        }
        #expect(try shoot(["--size", "1280x960"]).width == 1280)
        let plain = try shoot([])
        let longer = try shoot(["--shutter", "60000"])  // 600 units of 100 µs against the replay camera's 250
        #expect(longer.mean > plain.mean + 10, "a longer exposure is brighter: \(longer.mean) against \(plain.mean)")
        let bad = mattebox("capture", "--cameras", cameras, "-o", output, "--awb", "warm")
        #expect(bad.status == 64 && bad.errors.contains("--awb takes auto or a colour temperature"), "\(bad.errors)")
        let size = mattebox("capture", "--cameras", cameras, "-o", output, "--size", "big")
        #expect(size.status == 64 && size.errors.contains("--size takes WIDTHxHEIGHT"), "\(size.errors)")
    }

    /// A pipeline written on the command line, as gst-launch takes one: it runs like the file it
    /// stands for, and its mistakes are command-line mistakes that name the stage.
    @Test func aPipelineWrittenInlineRunsAndItsMistakesAreNamed() throws {
        let astronaut = TestEnvironment.packageRoot.appendingPathComponent("Samples/cameras/astronaut.jpg").path
        let out = output
        let run = mattebox("process", astronaut, "-o", out, "--pipeline", "orientation ! portrait-matte effort=speed ! ?semantic-mattes ! heif", "--json")
        #expect(run.status == 0, "\(run.errors)")
        let inspected = mattebox("inspect", out + "/astronaut.heic", "--json")
        let listing = try JSONSerialization.jsonObject(with: Data(inspected.output.utf8)) as? [String: Any]
        let roles = Set(((listing?["auxiliary"] as? [[String: Any]]) ?? []).compactMap { $0["role"] as? String })
        #expect(roles.contains("portraitMatte"), "\(roles) \(inspected.errors)")

        let typo = mattebox("process", astronaut, "-o", output, "--pipeline", "orientation ! portrait-mate")
        #expect(typo.status == 64 && typo.errors.contains("did you mean `portrait-matte`"), "\(typo.errors)")
        let value = mattebox("process", astronaut, "-o", output, "--pipeline", "orientation ! portrait-matte effort=best")
        #expect(value.status == 64 && value.errors.contains("expected one of auto, speed, balanced, quality, got best"), "\(value.errors)")
        let bare = mattebox("process", astronaut, "-o", output, "--pipeline", "orientation ! portrait-matte effort")
        #expect(bare.status == 64 && bare.errors.contains("`effort` should be KEY=VALUE"), "\(bare.errors)")
        let empty = mattebox("process", astronaut, "-o", output, "--pipeline", "orientation ! ! heif")
        #expect(empty.status == 64 && empty.errors.contains("empty stage (stage 2)"), "\(empty.errors)")
    }

    /// The main job's pipeline keeps a photo's format when it makes no matte: a JPEG with no face
    /// stays a JPEG (turned upright, not encoded again), a HEIC stays a HEIC, and a portrait becomes
    /// a HEIC with its mattes.
    @Test func portraitMattesKeepsTheFormatOfAPhotoWithNoFace() throws {
        let photos = TestEnvironment.packageRoot.appendingPathComponent("Samples/photos")
        let heic = folder.appendingPathComponent("no-face.heic").path
        #expect(TestEnvironment.run(["vips", "copy", photos.appendingPathComponent("orientation-1.jpg").path, heic]).status == 0)
        let astronaut = TestEnvironment.packageRoot.appendingPathComponent("Samples/cameras/astronaut.jpg").path
        let out = output
        let run = mattebox("process", photos.appendingPathComponent("orientation-6.jpg").path, heic, astronaut, "-o", out, "--pipeline", "portrait-mattes")
        #expect(run.status == 0, "\(run.errors)")
        let written = Set((try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []).filter { !$0.hasPrefix(".") }
        #expect(written == ["orientation-6.jpg", "no-face.heic", "astronaut.heic"], "\(written)")
        // The JPEG was turned in the DCT domain: upright, and as vips autorot shows the original.
        let turned = try ImageDecoder.decodePhoto(at: URL(fileURLWithPath: out + "/orientation-6.jpg"))
        let shown = try TestImages.autorotated(photos.appendingPathComponent("orientation-6.jpg"), scratch: folder)
        #expect(turned.metadata.orientation == .up && TestImages.meanDifference(turned.primary, shown) < 3)
    }

    /// Messages that say what happened in words, about the file the user gave.
    @Test func damagedInputStandardInputAndRepeatedExportsAreToldPlainly() throws {
        let astronaut = TestEnvironment.packageRoot.appendingPathComponent("Samples/cameras/astronaut.jpg")
        let cut = folder.appendingPathComponent("cut.jpg")
        try Data(try Data(contentsOf: astronaut).prefix(1500)).write(to: cut)
        let damaged = mattebox("process", cut.path, "-o", output)
        #expect(damaged.status == 1 && damaged.output.contains("\(cut.path): the file is cut short"), "\(damaged.output)")
        #expect(!damaged.errors.contains("VIPS-WARNING"), "libvips' raw warning leaked: \(damaged.errors)")

        // Standard input is named as such, not as the temporary file it was spooled into.
        let piped = TestEnvironment.run(["/bin/sh", "-c", "\"$0\" process - -o \"$1\" < \"$2\"", TestEnvironment.mattebox, output, astronaut.path])
        #expect(piped.status == 0 && piped.output.contains("standard input -> ") && !piped.output.contains("/tmp/mattebox-"), "\(piped.output)")

        // export twice to one file: the second replaces what the first wrote; a file changed since is kept.
        let heic = folder.appendingPathComponent("exported.heic").path
        #expect(mattebox("export", astronaut.path, "-o", heic).status == 0)
        let again = mattebox("export", astronaut.path, "-o", heic)
        #expect(again.status == 0, "\(again.errors)")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: heic))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("edited".utf8))
        try handle.close()
        let kept = mattebox("export", astronaut.path, "-o", heic)
        #expect(kept.status == 1 && kept.errors.contains("changed since Mattebox wrote it"), "\(kept.errors)")
    }
}
