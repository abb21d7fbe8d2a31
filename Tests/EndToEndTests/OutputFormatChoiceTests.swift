import Foundation
import MatteboxTestSupport
import Testing

/// Which format a photo is written in when the user names none, and what
/// `--format jpeg` does with a pipeline that makes mattes: JPEG in, JPEG out
/// while a JPEG holds all of it; the mattes beside it as PNG files with
/// `--aux-png`, which the refusal's hint names and which then works.
@Suite struct OutputFormatChoiceTests {
    let folder: URL

    init() throws { folder = try TestEnvironment.scratchDirectory("format-choice") }

    static func inspect(_ path: String) -> [String: Any] {
        let run = TestEnvironment.run([TestEnvironment.mattebox, "inspect", "--json", path])
        return (try? JSONSerialization.jsonObject(with: Data(run.output.utf8))) as? [String: Any] ?? [:]
    }

    static func roles(_ report: [String: Any]) -> Set<String> {
        Set(((report["auxiliary"] as? [[String: Any]]) ?? []).compactMap { $0["role"] as? String })
    }

    /// Issue 57 (3): turning photos upright beside themselves kept every phone JPEG a JPEG, with
    /// the phone's depth (Lens Blur's, the iPhone's matte) as the JPEG held it, and no note of a loss.
    @Test func aJPEGStaysAJPEGWithItsPhonesDepth() throws {
        let photos = folder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        var names = ["orientation-6.jpg"]
        try FileManager.default.copyItem(
            at: TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/orientation-6.jpg"),
            to: photos.appendingPathComponent("orientation-6.jpg"))
        if let shared = TestEnvironment.shared {
            for name in ["spite__depth-player__jules.jpg", "shu223__iOS-Depth-Sampler__image-with-matte.jpg"] {
                try FileManager.default.copyItem(at: shared.appendingPathComponent("depth-samples/\(name)"), to: photos.appendingPathComponent(name))
                names.append(name)
            }
        } else {
            print("the phone JPEGs are in ../shared, which is not here: only the sample photo is checked")
        }
        let run = TestEnvironment.run([TestEnvironment.mattebox, "process", photos.path, "-o", photos.path, "--suffix", "-edited"])
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        #expect(!run.output.contains("not kept"), "something was left out: \(run.output)")
        for name in names {
            let stem = (name as NSString).deletingPathExtension
            let written = photos.appendingPathComponent("\(stem)-edited.jpg").path
            #expect(FileManager.default.fileExists(atPath: written), "\(name) was not written as JPEG: \(run.output)")
            #expect(!FileManager.default.fileExists(atPath: photos.appendingPathComponent("\(stem)-edited.heic").path))
            let original = Self.roles(Self.inspect(photos.appendingPathComponent(name).path))
            #expect(Self.roles(Self.inspect(written)) == original, "\(name): the JPEG lost images")
        }
        // HEIC when asked.
        let asked = TestEnvironment.run(
            [TestEnvironment.mattebox, "process", photos.appendingPathComponent(names[0]).path, "-o", folder.appendingPathComponent("asked").path,
             "--format", "heic"])
        #expect(asked.status == 0 && FileManager.default.fileExists(atPath: folder.appendingPathComponent("asked/orientation-6.heic").path))
    }

    /// Issue 57 (2): `--format jpeg` with the mattes pipeline is refused with a hint, and the hint works:
    /// with `--aux-png` the JPEG is written and every matte lies beside it as a PNG file.
    @Test func theAuxPNGHintLeadsToAJPEGWithItsMattesBeside() throws {
        let photo = "/usr/share/doc/opencv-doc/examples/data/messi5.jpg"
        let out = folder.appendingPathComponent("jpeg-mattes")
        let refused = TestEnvironment.run([TestEnvironment.mattebox, "process", photo, "-o", out.path, "--pipeline", "portrait-mattes", "--format", "jpeg"])
        #expect(refused.status == 64 && refused.errors.contains("add --aux-png"), "\(refused.status) \(refused.errors)")
        let run = TestEnvironment.run(
            [TestEnvironment.mattebox, "process", photo, "-o", out.path, "--pipeline", "portrait-mattes", "--format", "jpeg", "--aux-png"],
            timeout: 600)
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        let files = Set((try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? [])
        #expect(files.contains("messi5.jpg"), "\(files)")
        #expect(files.contains("messi5.portraitMatte.png"), "the matte is not beside the JPEG: \(files)")
        #expect(!files.contains("messi5.heic"))
        // A stage that names HEIC is still a conflict, whose hint says what to change.
        let named = TestEnvironment.run(
            [TestEnvironment.mattebox, "process", photo, "-o", out.path, "--pipeline", "portrait-matte ! heif format=heic", "--format", "jpeg", "--aux-png"])
        #expect(named.status == 64 && named.errors.contains("format to auto"), "\(named.errors)")
    }
}
