import Foundation
import MatteboxTestSupport
import Testing

let iPhonePortrait = TestEnvironment.shared?.appendingPathComponent("heic-samples/openize__iphone_portrait_photo.heic")

/// `mattebox render` as a user runs it: an iPhone Portrait HEIC re-rendered
/// from its own disparity (the original untouched, its EXIF and colour
/// profile kept), a photo with nothing to render from refused in words, and
/// background options that imply their mode or contradict it.
@Suite struct RenderCommandTests {
    let folder: URL

    init() throws { folder = try TestEnvironment.scratchDirectory("render") }

    private func mattebox(_ arguments: String...) -> TestEnvironment.CommandResult {
        TestEnvironment.run([TestEnvironment.mattebox] + arguments, timeout: 300)
    }

    private func tag(_ name: String, of url: URL) -> String {
        TestEnvironment.run(["/usr/bin/exiftool", "-s3", "-\(name)", url.path]).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(.enabled(if: iPhonePortrait != nil, "../shared/heic-samples is not beside this checkout; skipping the iPhone Portrait photo"))
    func anIPhonePortraitIsRenderedFromItsOwnDisparity() throws {
        let input = folder.appendingPathComponent("portrait.heic")
        try FileManager.default.copyItem(at: try #require(iPhonePortrait), to: input)
        let before = try Data(contentsOf: input)
        let out = folder.appendingPathComponent("out")
        let run = mattebox("render", input.path, "-o", out.path, "--aperture", "2", "--json")
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        #expect(try Data(contentsOf: input) == before, "the original is never written")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        let photo = try #require((report["photos"] as? [[String: Any]])?.first)
        let notes = try #require(photo["notes"] as? [String: String])
        #expect(notes["portraitEffect"]?.contains("the photo's own disparity (measured)") == true, "\(notes)")
        #expect(notes["portraitEffectRemoved"]?.contains("disparity") == true, "\(notes)")
        let output = URL(fileURLWithPath: try #require(photo["output"] as? String))
        // The EXIF and the colour profile are the original's.
        #expect(tag("Model", of: output) == tag("Model", of: input) && !tag("Model", of: input).isEmpty)
        #expect(tag("DateTimeOriginal", of: output) == tag("DateTimeOriginal", of: input))
        #expect(tag("ProfileDescription", of: output) == tag("ProfileDescription", of: input))
        // The render is the same photo, blurred: libvips reads it at the same size, and it differs from the original.
        let size = TestEnvironment.run(["/usr/bin/vipsheader", "-f", "width", output.path]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(size == "3024")
        let difference = TestEnvironment.run(["/usr/bin/vips", "subtract", input.path, output.path, folder.appendingPathComponent("d.v").path])
        #expect(difference.status == 0)
        let deviation = Double(TestEnvironment.run(["/usr/bin/vips", "deviate", folder.appendingPathComponent("d.v").path]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(deviation > 1, "the render changes the photo (deviation of the difference \(deviation))")
    }

    /// Issue 57 (8): no render is no success: the photo fails, saying what it lacks and what would give it.
    @Test func aPhotoWithNeitherDepthNorMatteFailsSayingWhatItLacks() throws {
        let input = folder.appendingPathComponent("plain.jpg")
        // A photo with no face: no matte can be made, and it has no depth.
        try FileManager.default.copyItem(
            at: TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/orientation-1.jpg"), to: input)
        for extra in [[], ["--background", "transparent", "--format", "png"]] {
            let out = folder.appendingPathComponent("plain-out")
            let run = TestEnvironment.run([TestEnvironment.mattebox, "render", input.path, "-o", out.path] + extra, timeout: 300)
            let words = run.output + run.errors
            #expect(run.status == 1, "\(words)")
            #expect(words.contains("no depth and no portrait matte") && words.contains("A photo with depth"), "\(words)")
            #expect(!words.contains("failed (not found)"), "\(words)")
            #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("plain.jpg").path))
        }
    }

    /// Issue 57 (7): --background-colour alone chooses the colour background (and says so); given with
    /// another mode it is a usage mistake, never silently ignored.
    @Test func aBackgroundColourAloneChoosesTheColourBackground() throws {
        let source = URL(fileURLWithPath: "/usr/share/doc/opencv-doc/examples/data/messi5.jpg")
        let out = folder.appendingPathComponent("red")
        let run = TestEnvironment.run([TestEnvironment.mattebox, "render", source.path, "-o", out.path, "--background-colour", "#ff0000"], timeout: 300)
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        #expect(run.errors.contains("background is colour"), "\(run.errors)")
        let corner = TestEnvironment.run(["/usr/bin/vips", "getpoint", out.appendingPathComponent("messi5.jpg").path, "4", "4"]).output
        let channels = corner.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        #expect(channels.count >= 3 && channels[0] > 200 && channels[1] < 60 && channels[2] < 60, "the corner is not red: \(corner)")
        let contradiction = TestEnvironment.run(
            [TestEnvironment.mattebox, "render", source.path, "-o", out.path, "--background", "blur", "--background-colour", "#ff0000"])
        #expect(contradiction.status == 64 && contradiction.errors.contains("--background-colour is for --background colour"), "\(contradiction.errors)")
    }

    /// Issue 55 (5): an iPhone's HDR gain map is rendered like its primary, or an HDR screen brings the
    /// background's detail back sharp. Where the rendered primary lost its detail (Laplacian energy under
    /// 0.3 of the original's) the gain map, where it has most detail, keeps at most half of its own; where
    /// the primary kept it (over 0.8: the focused glass), the gain map keeps most of its own.
    @Test func theHDRGainMapIsBlurredLikeThePrimary() throws {
        let photo = try #require(iPhonePortrait, "../shared/heic-samples is not here")
        let rendered = folder.appendingPathComponent("gain-render"), original = folder.appendingPathComponent("gain-original")
        let run = mattebox("render", photo.path, "-o", rendered.path, "--aperture", "2", "--format", "png", "--aux-png")
        #expect(run.status == 0 && run.output.contains("the HDR gain map rendered alike"), "\(run.output)\(run.errors)")
        #expect(mattebox("process", photo.path, "-o", original.path, "--format", "png", "--aux-png").status == 0)
        let name = "openize__iphone_portrait_photo"
        let script = """
            import cv2, numpy as np, sys
            grey = lambda p: cv2.imread(p, 0).astype(np.float32)
            ga, gb = grey(sys.argv[1]), grey(sys.argv[2])
            pa, pb = (cv2.resize(grey(p), (ga.shape[1], ga.shape[0]), interpolation=cv2.INTER_AREA) for p in sys.argv[3:5])
            energy = lambda x: cv2.blur(cv2.Laplacian(x, cv2.CV_32F) ** 2, (24, 24))
            ea, eb, kept = energy(ga), energy(gb), energy(pb) / np.maximum(energy(pa), 1e-6)
            detailed = ea > np.quantile(ea, 0.8)
            blurred, sharp = detailed & (kept < 0.3), detailed & (kept > 0.8)
            print(eb[blurred].sum() / ea[blurred].sum(), eb[sharp].sum() / ea[sharp].sum(), blurred.sum(), sharp.sum())
            """
        let measured = TestEnvironment.run([
            "/usr/bin/python3", "-c", script, original.appendingPathComponent("\(name).com.apple.hdrgainmap.png").path,
            rendered.appendingPathComponent("\(name).com.apple.hdrgainmap.png").path, original.appendingPathComponent("\(name).png").path,
            rendered.appendingPathComponent("\(name).png").path,
        ]).output.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        try #require(measured.count == 4, "\(measured)")
        #expect(measured[2] > 10_000 && measured[3] > 10_000, "too few detailed pixels blurred (\(measured[2])) or kept sharp (\(measured[3]))")
        #expect(measured[0] <= 0.5, "the gain map where the primary blurred kept \(measured[0]) of its detail")
        #expect(measured[1] >= 0.7, "the gain map where the primary stayed sharp kept only \(measured[1]) of its detail")
    }

    /// A render beside the original, as Photos' "Save a copy": refused without a new name, written with one.
    @Test func aRenderBesideTheOriginalNeedsAnotherName() throws {
        let own = folder.appendingPathComponent("own")
        try FileManager.default.createDirectory(at: own, withIntermediateDirectories: true)
        let input = own.appendingPathComponent("messi5.jpg")
        let source = URL(fileURLWithPath: "/usr/share/doc/opencv-doc/examples/data/messi5.jpg")
        try FileManager.default.copyItem(
            at: FileManager.default.fileExists(atPath: source.path) ? source : TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/selfie-front.jpg"),
            to: input)
        let before = try Data(contentsOf: input)
        let refused = mattebox("render", input.path, "-o", own.path)
        #expect(refused.status == 64 && refused.errors.contains("--suffix"), "\(refused.errors)")
        let run = mattebox("render", input.path, "-o", own.path, "--suffix", "-portrait", "--aperture", "2")
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        #expect(FileManager.default.fileExists(atPath: own.appendingPathComponent("messi5-portrait.jpg").path), "\(run.output)")
        #expect(try Data(contentsOf: input) == before, "the original is byte-identical")
    }

    @Test func badSettingsAreCommandLineMistakes() throws {
        let input = TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/orientation-1.jpg").path
        let out = folder.appendingPathComponent("bad").path
        // Each is refused by the plugin's descriptor or its own checks, as the app's control and a pipeline file would be.
        for arguments in [
            ["--aperture", "0.5"], ["--focus", "middle"], ["--background", "sky"], ["--highlights", "2"],
            ["--background", "colour", "--background-colour", "#12345"], ["--set", "portrait-effect.max-blur=0.5"],
            ["--matte", "none", "--set", "portrait-matte.effort=quality"],
        ] {
            let run = TestEnvironment.run([TestEnvironment.mattebox, "render", input, "-o", out] + arguments)
            #expect(run.status == 64, "\(arguments): \(run.status) \(run.errors)")
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
