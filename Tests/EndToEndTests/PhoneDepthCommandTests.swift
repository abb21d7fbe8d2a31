import Foundation
import MatteboxMetadata
import MatteboxTestSupport
import Testing

private let depthSamples: [URL] = {
    guard let folder = TestEnvironment.shared?.appendingPathComponent("depth-samples"),
        let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
    else { return [] }
    return names.filter { $0.lowercased().hasSuffix(".jpg") }.sorted().map { folder.appendingPathComponent($0) }
}()

/// The real phone JPEGs with depth (an iPhone X's MPF disparity and matte, Lens
/// Blur's GDepth and GImage), as a user meets them: `inspect` lists the depth
/// and where it was stored, a JPEG output keeps the phone's own bytes, and
/// `render` blurs by the phone's depth. (pillow-heif reading the HEIC outputs
/// as depth is Tests/Interop/run.sh.)
@Suite(.enabled(if: !depthSamples.isEmpty, "../shared/depth-samples is not beside this checkout; skipping the phone JPEGs"))
struct PhoneDepthCommandTests {
    let folder: URL

    init() throws { folder = try TestEnvironment.scratchDirectory("phone-depth-cli") }

    private func mattebox(_ arguments: [String]) -> TestEnvironment.CommandResult {
        TestEnvironment.run([TestEnvironment.mattebox] + arguments, timeout: 300)
    }

    private func json(_ run: TestEnvironment.CommandResult) throws -> [String: Any] {
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
    }

    private func isIPhone(_ url: URL) -> Bool { url.lastPathComponent.contains("iOS-Depth") }

    @Test func inspectListsEachPhonesDepthAndWhereItWasStored() throws {
        for sample in depthSamples {
            let report = try json(mattebox(["inspect", "--json", sample.path]))
            let auxiliary = report["auxiliary"] as? [[String: Any]] ?? []
            let depth = try #require(auxiliary.first { $0["role"] as? String == "disparity" }, "\(sample.lastPathComponent): \(auxiliary)")
            let source = depth["source"] as? String ?? ""
            #expect(source.hasPrefix(isIPhone(sample) ? "iPhone JPEG disparity" : "Lens Blur depth"), "\(sample.lastPathComponent): \(source)")
            let representation = try #require(depth["depth"] as? [String: Any])
            let low = try #require(representation["disparityMinimum"] as? Double), high = try #require(representation["disparityMaximum"] as? Double)
            #expect(low > 0 && high > low, "\(sample.lastPathComponent)")
            let values = try #require(depth["values"] as? [Double])
            #expect(values[1] - values[0] > 100, "the stored depth spans its range: \(values)")
            if isIPhone(sample) {
                #expect(auxiliary.contains { $0["role"] as? String == "portraitMatte" }, "the iPhone's portrait matte")
            } else {
                #expect(auxiliary.contains { $0["role"] as? String == "com.google.gimage" && $0["channels"] as? Int == 3 }, "Lens Blur's GImage")
            }
            #expect(report["depthNote"] == nil, "\(sample.lastPathComponent): \(report["depthNote"] ?? "")")
        }
    }

    @Test func aJPEGOutputKeepsThePhonesOwnDepthBytes() throws {
        let out = folder.appendingPathComponent("jpeg")
        let report = try json(mattebox(["process"] + depthSamples.map(\.path) + ["-o", out.path, "--format", "jpeg", "--json"]))
        for photo in report["photos"] as? [[String: Any]] ?? [] {
            let notes = photo["notes"] as? [String: String] ?? [:]
            #expect(notes["auxiliaryImages"] == nil && notes["jpegSegments"] == nil, "nothing dropped: \(notes)")
        }
        for sample in depthSamples {
            let input = [UInt8](try Data(contentsOf: sample))
            let output = [UInt8](try Data(contentsOf: out.appendingPathComponent(sample.lastPathComponent)))
            // What holds the depth: the MPF index and the images after the primary, or the extended XMP.
            let kept = { (bytes: [UInt8]) -> [[UInt8]] in
                let segments = JPEGSegments.segments(of: bytes).filter { $0.isMPF || $0.starts(with: ExtendedXMP.header) }.map { Array($0.bytes) }
                return segments + [Array(bytes[(JPEGSegments.endOfImage(in: bytes) ?? bytes.count)...])]
            }
            #expect(kept(output) == kept(input), "\(sample.lastPathComponent): the phone's depth bytes are kept as they were")
            #expect(kept(input).count > 1, "\(sample.lastPathComponent) holds MPF or extended XMP")
        }
    }

    @Test func renderBlursByThePhonesOwnDepth() throws {
        let out = folder.appendingPathComponent("render")
        let report = try json(mattebox(["render"] + depthSamples.map(\.path) + ["-o", out.path, "--aperture", "2.8", "--matte", "none", "--json"]))
        let photos = report["photos"] as? [[String: Any]] ?? []
        #expect(photos.count == depthSamples.count)
        for photo in photos {
            let input = photo["input"] as? String ?? ""
            let note = (photo["notes"] as? [String: String])?["portraitEffect"] ?? ""
            if input.contains("iOS-Depth") {
                #expect(note.contains("the photo's own disparity (measured: iPhone JPEG disparity (MPF image 2))"), "\(input): \(note)")
            } else {
                #expect(note.contains("the photo's own disparity (measured: Lens Blur depth (GDepth RangeInverse"), "\(input): \(note)")
                #expect(note.contains("rendered from the photo before the phone's own blur"), "\(input): \(note)")
            }
        }
    }

    /// Issue 55: with no options, a Lens Blur photo is rendered where and as strongly as the phone
    /// rendered it (its GFocus point, its BlurAtInfinity at its focal distance), judged by
    /// ../shared/tools/focus_agree.py: the detail kept in the phone's sharp regions and in its blurred ones.
    @Test func aLensBlurPhotoIsRenderedWithThePhonesFocusAndStrength() throws {
        let tool = try #require(TestEnvironment.shared?.appendingPathComponent("tools/focus_agree.py"))
        let lensBlur = depthSamples.filter { !$0.lastPathComponent.hasPrefix("shu223") }
        try #require(lensBlur.count >= 4, "\(lensBlur)")
        let aux = folder.appendingPathComponent("gimage"), out = folder.appendingPathComponent("phone-focus")
        #expect(mattebox(["process"] + lensBlur.map(\.path) + ["-o", aux.path, "--format", "heic", "--aux-png"]).status == 0)
        let run = mattebox(["render"] + lensBlur.map(\.path) + ["-o", out.path])
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        #expect(run.output.contains("the phone's own focus and strength (Lens Blur's GFocus)"), "\(run.output)")
        // The render follows the phone from the depth alone: no matte is made for it (no network run in vain).
        #expect(run.output.components(separatedBy: "no portrait matte made: the phone chose this photo's focus").count - 1 == lensBlur.count,
                "\(run.output)")
        for photo in lensBlur {
            let stem = photo.deletingPathExtension().lastPathComponent
            let measured = TestEnvironment.run([
                "/usr/bin/python3", tool.path, aux.appendingPathComponent("\(stem).com.google.gimage.png").path, photo.path,
                out.appendingPathComponent("\(stem).jpg").path,
            ]).output.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            try #require(measured.count == 3, "\(stem): focus_agree gave \(measured)")
            #expect(measured[0] >= 0.6, "\(stem): kept \(measured[0]) of the detail the phone kept sharp")
            #expect(measured[1] <= 0.35, "\(stem): kept \(measured[1]) of the detail the phone blurred")
        }
        // inspect shows where the phone focused.
        let inspected = mattebox(["inspect", lensBlur[0].path])
        #expect(inspected.output.contains("the phone's focus: ") && inspected.output.contains("Lens Blur's GFocus"), "\(inspected.output)")
        // An aperture given is the strength asked for.
        let wide = mattebox(["render", lensBlur[0].path, "-o", folder.appendingPathComponent("f16").path, "--aperture", "16"])
        #expect(wide.output.contains("f/16.0") && !wide.output.contains("own focus and strength"), "\(wide.output)")
        // A focus of the user's own, even through --set, is not the phone's: the matte is made as usual.
        let refocused = mattebox(["render", lensBlur[0].path, "-o", folder.appendingPathComponent("set-focus").path,
                                  "--set", "portrait-effect.focus=0.5,0.5"])
        #expect(refocused.status == 0 && !refocused.output.contains("the phone chose this photo's focus"), "\(refocused.output)")
    }
}
