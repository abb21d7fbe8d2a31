import Foundation
import MatteboxTestSupport
import Testing

/// `process --hdr`: an iPhone HDR photo keeps its gain map by default and loses it, with a note,
/// when asked; the iOS 18 tone map item that joins the gain map goes with it; a word other than
/// keep or drop is a usage error before any photo is read.
@Suite(.enabled(if: TestEnvironment.shared != nil, "../shared/heic-samples is missing"))
struct HDRChoiceTests {
    let folder: URL
    init() throws { folder = try TestEnvironment.scratchDirectory("hdr-choice") }

    func process(_ name: String, _ extra: [String]) -> (TestEnvironment.CommandResult, inspect: String) {
        let input = TestEnvironment.shared!.appendingPathComponent("heic-samples/\(name)").path
        let out = folder.appendingPathComponent(extra.joined(separator: "-").isEmpty ? "default" : extra.joined(separator: "-")).path
        let run = TestEnvironment.run([TestEnvironment.mattebox, "process", input, "-o", out] + extra, timeout: 600)
        let written = (out as NSString).appendingPathComponent((name as NSString).deletingPathExtension + ".heic")
        return (run, TestEnvironment.run([TestEnvironment.mattebox, "inspect", written], timeout: 120).output)
    }

    @Test func theGainMapIsKeptByDefaultAndLeftOutWhenAsked() {
        let name = "openize__iphone_iOS18_tmap+MatteMaps.heic"
        let (kept, keptListing) = process(name, [])
        #expect(kept.status == 0, "\(kept.output)")
        #expect(keptListing.contains("urn:com:apple:photo:2020:aux:hdrgainmap") && keptListing.contains("tone map: ISO 21496-1"), "\(keptListing)")

        let (dropped, droppedListing) = process(name, ["--hdr", "drop"])
        #expect(dropped.status == 0, "\(dropped.output)")
        #expect((dropped.output + dropped.errors).contains("the HDR gain map (com.apple.hdrgainmap) left out, as --hdr drop asked"), "\(dropped.output)")
        #expect(!droppedListing.contains("hdrgainmap") && !droppedListing.contains("tone map"), "\(droppedListing)")
        #expect(droppedListing.contains("semanticskinmatte"), "the other auxiliary images stay: \(droppedListing)")
    }

    @Test func aWordOtherThanKeepOrDropIsAUsageError() {
        let input = TestEnvironment.shared!.appendingPathComponent("heic-samples/pillow_heif__pug.heic").path
        let run = TestEnvironment.run([TestEnvironment.mattebox, "process", input, "-o", folder.appendingPathComponent("none").path, "--hdr", "maybe"], timeout: 120)
        #expect(run.status == 64 && (run.output + run.errors).contains("--hdr must be keep or drop, not maybe"), "\(run.status): \(run.errors)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("none").path))
    }

    /// iOS 18's ISO 21496-1 tone map rests on the primary's and the gain map's pixels, not on their
    /// codec: written as AVIF (every image encoded again in AV1), or as HEIC with `--reencode`, the
    /// `tmap` item goes along over the new primary and gain map, with the same metadata, and libheif
    /// opens the file.
    @Test(arguments: [["--format", "avif"], ["--reencode"]])
    func theToneMapFollowsItsImagesWhenTheyAreEncodedAgain(_ options: [String]) throws {
        let name = "openize__iphone_iOS18_tmap+MatteMaps.heic"
        let input = TestEnvironment.shared!.appendingPathComponent("heic-samples/\(name)").path
        let out = folder.appendingPathComponent("again" + options.joined()).path
        let run = TestEnvironment.run([TestEnvironment.mattebox, "process", input, "-o", out] + options, timeout: 600)
        #expect(run.status == 0, "\(run.errors)")
        #expect(!(run.output + run.errors).contains("'tmap' derived image"), "the tone map was left out: \(run.output)")
        let written = try #require(try FileManager.default.contentsOfDirectory(atPath: out).first { $0.hasPrefix("openize") })
        func summary(_ path: String) throws -> [String: Any] {
            let listing = TestEnvironment.run([TestEnvironment.mattebox, "inspect", "--json", path], timeout: 120)
            return try #require(try JSONSerialization.jsonObject(with: Data(listing.output.utf8)) as? [String: Any], "\(listing.errors)")
        }
        let before = try summary(input), after = try summary((out as NSString).appendingPathComponent(written))
        let toneMap = try #require(after["toneMap"] as? [String: Any], "no tone map in \(written)")
        let primary = try #require((after["primary"] as? [String: Any])?["item"] as? Int)
        let gainMap = (after["auxiliary"] as? [[String: Any]] ?? []).first { ($0["type"] as? String)?.hasSuffix("hdrgainmap") == true }
        let gainMapItem = try #require((gainMap?["image"] as? [String: Any])?["item"] as? Int)
        #expect(toneMap["inputs"] as? [Int] == [primary, gainMapItem])
        let metadata = try #require(toneMap["metadata"] as? [String: Any]), original = try #require((before["toneMap"] as? [String: Any])?["metadata"] as? [String: Any])
        func text(_ value: [String: Any]) throws -> String {
            String(decoding: try JSONSerialization.data(withJSONObject: value, options: .sortedKeys), as: UTF8.self)
        }
        #expect(try text(metadata) == text(original))
        let verdict = TestEnvironment.run([TestEnvironment.mattebox, "inspect", (out as NSString).appendingPathComponent(written)], timeout: 120)
        #expect(verdict.output.contains("opens it"), "libheif: \(verdict.output.suffix(200))")
    }
}
