import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxISOBMFF
import MatteboxRuntime
import MatteboxTestSupport
import Testing

private let heicSamples = TestEnvironment.shared?.appendingPathComponent("heic-samples")

/// `mattebox export`, `inspect` and the HEIF packaging plugin as a user runs them.
@Suite struct HEIFCommandTests {
    let folder: URL

    init() throws { folder = try TestEnvironment.scratchDirectory("heif-cli") }

    private func mattebox(_ arguments: [String]) -> TestEnvironment.CommandResult {
        TestEnvironment.run([TestEnvironment.mattebox] + arguments, timeout: 600)
    }

    private func json(_ result: TestEnvironment.CommandResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
    }

    private var samplePhoto: String {
        TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/orientation-1.jpg").path
    }

    /// A 96x64 16-bit depth map in millimetres (500...2000) and an 8-bit matte, as PNGs.
    private func writeAuxiliaryFiles() throws -> (depth: String, matte: String) {
        let depth = PixelImage(width: 48, height: 32, channels: 1, format: .uint16)
        for y in 0..<32 {
            for x in 0..<48 {
                depth.data.storeBytes(of: UInt16(500 + 1500 * x / 47), toByteOffset: (y * 48 + x) * 2, as: UInt16.self)
            }
        }
        let depthURL = folder.appendingPathComponent("depth.png")
        try AtomicFile.write(try ImageEncoder.encode(depth, as: .png), to: depthURL)
        let matteURL = folder.appendingPathComponent("hair.png")
        try AtomicFile.write(try ImageEncoder.encode(TestImages.matte(width: 96, height: 64), as: .png), to: matteURL)
        return (depthURL.path, matteURL.path)
    }

    @Test func exportPackagesAPhotoWithDepthAndMattesThatInspectLists() throws {
        let files = try writeAuxiliaryFiles()
        let output = folder.appendingPathComponent("packaged.heic").path
        let export = mattebox([
            "export", samplePhoto, "-o", output, "--depth", files.depth, "--matte", "hair=\(files.matte)",
            "--portrait-matte", files.matte, "--preset", "ultrafast", "--json",
        ])
        #expect(export.status == 0, "\(export.errors)")
        let report = try json(export)
        #expect((report["auxiliary"] as? [[String: Any]])?.count == 3)

        let inspect = mattebox(["inspect", output, "--json"])
        #expect(inspect.status == 0, "\(inspect.errors)")
        let summary = try json(inspect)
        let auxiliary = try #require(summary["auxiliary"] as? [[String: Any]])
        let byRole = Dictionary(uniqueKeysWithValues: auxiliary.map { ($0["role"] as! String, $0) })
        #expect(Set(byRole.keys) == ["depth", "hairMatte", "portraitMatte"])
        let depth = try #require(byRole["depth"]?["depth"] as? [String: Any])
        #expect(depth["kind"] as? String == "uniformZ")  // from millimetres to metres; --json names its enums
        #expect(abs((depth["nearestDepth"] as? Double ?? 0) - 0.5) < 0.001)
        #expect(abs((depth["farthestDepth"] as? Double ?? 0) - 2.0) < 0.001)
        #expect((byRole["hairMatte"]?["image"] as? [String: Any])?["width"] as? Int == 96)
        #expect((summary["exif"] as? [String: Any])?["make"] as? String == "Mattebox")
        #expect((summary["libheif"] as? String)?.hasPrefix("opens it (3 auxiliary images") == true)

        let text = mattebox(["inspect", output, "--sheet", folder.appendingPathComponent("sheet.png").path])
        #expect(text.status == 0, "\(text.errors)")
        #expect(text.output.contains("representation: uniform Z, z-near 0.500000, z-far 2.000000"))
        #expect(text.output.contains("type urn:com:apple:photo:2019:aux:semantichairmatte"))
        let sheet = try ImageDecoder.decodePhoto(at: folder.appendingPathComponent("sheet.png")).primary
        // Four columns (primary, depth, hair, portrait) over two rows of 240-pixel images plus captions.
        #expect(sheet.width > 4 * 360 && sheet.height > 2 * 240)
    }

    @Test func exportRefusesADepthMapThatCannotLineUp() throws {
        let turned = folder.appendingPathComponent("turned.png")
        try AtomicFile.write(try ImageEncoder.encode(TestImages.matte(width: 64, height: 96), as: .png), to: turned)
        let result = mattebox(["export", samplePhoto, "-o", folder.appendingPathComponent("x.heic").path, "--depth", turned.path])
        #expect(result.status != 0)
        #expect(result.errors.contains("turned.png: depth is 64x96, which does not line up with the 96x64 photo"))
        #expect(result.errors.contains("looks turned by 90°"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("x.heic").path))
    }

    /// Issue 56: inspect shows the headroom of each shared iPhone sample's gain map, from its maker note.
    @Test func inspectShowsTheHeadroomOfAnIPhoneGainMap() throws {
        guard let shared = TestEnvironment.shared else { return print("skipping: ../shared is not here") }
        let expected = [
            "exif-samples__iphone_13_pro_max.HEIC": "3.12x SDR white (1.64 stops; Apple maker note HDRHeadroom 0.843, HDRGain 0.00802)",
            "openize__iphone_iOS18_tmap+MatteMaps.heic": "2.68x SDR white (1.42 stops; Apple maker note HDRHeadroom 1.01, HDRGain 2.9)",
            "pillow_heif__pug.heic": "3.48x SDR white (1.8 stops; Apple maker note HDRHeadroom 0.879, HDRGain absent, taken as 0)",
        ]
        for (name, line) in expected {
            let run = mattebox(["inspect", shared.appendingPathComponent("heic-samples/\(name)").path])
            #expect(run.output.contains("headroom: " + line), "\(name): \(run.output)")
            let json = mattebox(["inspect", "--json", shared.appendingPathComponent("heic-samples/\(name)").path])
            let exif = ((try? JSONSerialization.jsonObject(with: Data(json.output.utf8))) as? [String: Any])?["exif"] as? [String: Any]
            #expect((exif?["appleHDRHeadroom"] as? [String: Any])?["headroom"] as? Double != nil, "\(name): \(json.output.prefix(300))")
        }
    }

    @Test func inspectNamesTheFileOfABrokenHEIF() throws {
        let broken = folder.appendingPathComponent("broken.heic")
        let files = try writeAuxiliaryFiles()
        let whole = folder.appendingPathComponent("whole.heic")
        #expect(mattebox(["export", samplePhoto, "-o", whole.path, "--depth", files.depth, "--preset", "ultrafast"]).status == 0)
        let bytes = try Data(contentsOf: whole)
        try bytes.prefix(bytes.count / 2).write(to: broken)
        let result = mattebox(["inspect", broken.path])
        #expect(result.status != 0)
        #expect(result.errors.contains("\(broken.path): malformed HEIF"))
    }

    @Test func theHEIFPluginRefusesAPhotoWithoutTheRolesItRequires() throws {
        let pipeline = folder.appendingPathComponent("needs-depth.yaml")
        try """
            stages:
              - plugin: org.mattebox.heif
                params: { require: "depth", preset: ultrafast }
            """.write(to: pipeline, atomically: true, encoding: .utf8)
        let result = mattebox(["process", samplePhoto, "-o", folder.path, "--pipeline", pipeline.path])
        #expect(result.status == 1)
        #expect(result.output.contains("the photo has no depth to package (it has: primary)"))
    }

    @Test(.enabled(if: heicSamples != nil, "../shared/heic-samples is not beside this checkout; skipping iPhone samples"))
    func aPipelineRewritesEveryIPhoneSampleKeepingEveryAuxiliaryImage() throws {
        let pipeline = folder.appendingPathComponent("package.yaml")
        try """
            stages:
              - plugin: org.mattebox.heif
                params: { quality: 80, preset: ultrafast }
            """.write(to: pipeline, atomically: true, encoding: .utf8)
        let inputs = try FileManager.default.contentsOfDirectory(at: heicSamples!, includingPropertiesForKeys: nil)
            .filter { ["heic", "HEIC"].contains($0.pathExtension) }.sorted { $0.path < $1.path }
        // A truncated copy fails alone; the others go on.
        let truncated = folder.appendingPathComponent("truncated.heic")
        try Data(contentsOf: inputs[0]).prefix(50_000).write(to: truncated)
        let out = folder.appendingPathComponent("out")
        let result = mattebox(["process"] + (inputs + [truncated]).map(\.path) + ["-o", out.path, "--pipeline", pipeline.path, "--json"])
        #expect(result.status == 1)
        let report = try json(result)
        #expect(report["succeeded"] as? Int == inputs.count)
        let photos = try #require(report["photos"] as? [[String: Any]])
        let failed = photos.first { $0["status"] as? String == "failed" }
        #expect((failed?["error"] as? String)?.hasPrefix("\(truncated.path): ") == true)

        for input in inputs {
            let before = try json(mattebox(["inspect", input.path, "--json"]))
            let rewritten = out.appendingPathComponent(input.deletingPathExtension().lastPathComponent + ".heic")
            let after = try json(mattebox(["inspect", rewritten.path, "--json"]))
            #expect(after["orientation"] as? Int == before["orientation"] as? Int, "\(input.lastPathComponent)")
            #expect(auxiliarySignature(after) == auxiliarySignature(before), "\(input.lastPathComponent)")
            #expect((after["libheif"] as? String)?.hasPrefix("opens it") == true, "\(input.lastPathComponent)")
        }
    }

    /// Reprocessing an iPhone photo the mattes pipeline has nothing to add to (no face in it) gives the
    /// photo back byte for byte, as a user syncing or deduplicating a library needs: not an equal file
    /// laid out anew without its MIAF brands.
    @Test(.enabled(if: heicSamples != nil, "../shared/heic-samples is not beside this checkout; skipping iPhone samples"))
    func aPhotoThePipelineLeftAsItWasIsWrittenAsItsOwnBytes() throws {
        let input = heicSamples!.appendingPathComponent("exif-samples__iphone_13_pro_max.HEIC")
        let out = folder.appendingPathComponent("unchanged")
        let run = mattebox(["process", input.path, "-o", out.path, "--pipeline", "portrait-mattes"])
        #expect(run.status == 0 && run.output.contains("no face found"), "\(run.output)\(run.errors)")
        let written = try Data(contentsOf: out.appendingPathComponent("exif-samples__iphone_13_pro_max.heic"))
        #expect(written == (try Data(contentsOf: input)), "\(written.count) bytes against \((try? Data(contentsOf: input))?.count ?? 0)")
    }

    /// Each auxiliary image's type and displayed size, sorted.
    private func auxiliarySignature(_ summary: [String: Any]) -> [String] {
        ((summary["auxiliary"] as? [[String: Any]]) ?? []).map { aux in
            let image = aux["image"] as? [String: Any] ?? [:]
            return "\(aux["type"] ?? "?") \(image["width"] ?? 0)x\(image["height"] ?? 0)"
        }.sorted()
    }
}

/// Adding mattes to a HEIC, as a user runs it: the primary is copied, not
/// encoded again, so the file grows by the new mattes alone and the input
/// is untouched; `--reencode` encodes it again.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/doc/opencv-doc/examples/data/messi5.jpg"),
                "opencv-doc's messi5.jpg is not installed"))
struct HEIFPassthroughCommandTests {
    @Test func mattesAddedToAHEICLeaveItsPrimaryAsCoded() throws {
        let folder = try TestEnvironment.scratchDirectory("passthrough")
        defer { try? FileManager.default.removeItem(at: folder) }
        func mattebox(_ arguments: [String]) throws {
            let run = TestEnvironment.run([TestEnvironment.mattebox] + arguments, timeout: 600)
            #expect(run.status == 0, "\(arguments): \(run.errors)")
        }
        try mattebox(["process", "/usr/share/doc/opencv-doc/examples/data/messi5.jpg", "-o", folder.path, "--format", "heic"])
        let input = folder.appendingPathComponent("messi5.heic")
        let inputBytes = try Data(contentsOf: input)
        let pipeline = folder.appendingPathComponent("mattes.yaml")
        try "stages:\n  - plugin: org.mattebox.portrait-matte\n  - plugin: org.mattebox.semantic-mattes\n"
            .write(to: pipeline, atomically: true, encoding: .utf8)
        for (name, extra) in [("copied", [String]()), ("reencoded", ["--reencode"])] {
            try mattebox(["process", input.path, "-o", folder.appendingPathComponent(name).path, "--pipeline", pipeline.path] + extra)
        }
        #expect(try Data(contentsOf: input) == inputBytes, "the input is untouched")

        let before = try HEIFFile(bytes: [UInt8](inputBytes))
        let copied = try HEIFFile(bytes: [UInt8](Data(contentsOf: folder.appendingPathComponent("copied/messi5.heic"))))
        let reencoded = try HEIFFile(
            bytes: [UInt8](Data(contentsOf: folder.appendingPathComponent("reencoded/messi5.heic"))))
        let original = try before.data(of: before.primaryID)
        #expect(try copied.data(of: copied.primaryID) == original)
        #expect(try reencoded.data(of: reencoded.primaryID) != original)
        // The output is the input plus the new mattes (and their XMP and boxes).
        let mattes = copied.references.filter { $0.type == "auxl" }.map(\.from)
        #expect(!mattes.isEmpty, "the pipeline added mattes")
        let added = try mattes.map { try copied.data(of: $0).count }.reduce(0, +)
        #expect(copied.bytes.count <= inputBytes.count + added + 4096, "\(copied.bytes.count) vs \(inputBytes.count) + \(added)")
    }
}
