import Foundation
import MatteboxTestSupport
import Testing

/// Issue 46, finding 11: every output `process` reports written is one
/// libheif opens. Damaged HEICs built from the shared samples the way the
/// finding's were (a `pixi` box become `auxC`, a 32-bit value overwritten, a
/// property become `ispe`) and seeded mutants of them go through `process`;
/// each output the report calls written is checked with libheif (`inspect`'s
/// verdict) and Mattebox's own reader. A photo may fail, or be written
/// without what was damaged (with a note); never written broken.
@Suite struct DamagedHEICOutputTests {
    /// Replaces the `index`-th occurrence of the 4-byte `type` with `replacement`.
    private func renamed(_ bytes: [UInt8], _ type: String, to replacement: String, occurrence index: Int = 0) -> [UInt8]? {
        let needle = Array(type.utf8)
        var found = 0
        for start in 0..<(bytes.count - 4) where Array(bytes[start..<start + 4]) == needle {
            if found == index {
                var copy = bytes
                copy.replaceSubrange(start..<start + 4, with: Array(replacement.utf8))
                return copy
            }
            found += 1
        }
        return nil
    }

    @Test func everyOutputProcessWritesIsOneLibheifOpens() throws {
        guard let shared = TestEnvironment.shared else {
            print("../shared is not beside this clone; the damaged-HEIC outputs are not checked")
            return
        }
        let samples = shared.appendingPathComponent("heic-samples")
        let portrait = [UInt8](try Data(contentsOf: samples.appendingPathComponent("openize__iphone_portrait_photo.heic")))
        let gainMap = [UInt8](try Data(contentsOf: samples.appendingPathComponent("openize__iphone_iOS18_tmap+MatteMaps.heic")))
        let small = [UInt8](try Data(contentsOf: samples.appendingPathComponent("synthetic_recipe_libheif115.heic")))
        let input = try TestEnvironment.scratchDirectory("damaged-heic-in")
        var files: [String: [UInt8]] = [:]
        // The finding's three: a depth HEIC's pixi become auxC; a 32-bit value in the item locations
        // overwritten; a property become ispe.
        files["pixi-as-auxC.heic"] = renamed(portrait, "pixi", to: "auxC")
        if let iloc = (0..<(gainMap.count - 4)).first(where: { Array(gainMap[$0..<$0 + 4]) == Array("iloc".utf8) }) {
            var overwritten = gainMap
            overwritten.replaceSubrange(iloc + 40..<iloc + 44, with: [0x7F, 0xFF, 0xFF, 0xF0])
            files["iloc-value-overwritten.heic"] = overwritten
        }
        files["colr-as-ispe.heic"] = renamed(gainMap, "colr", to: "ispe")
        // Seeded mutants: bytes of the boxes before the coded data changed, the same on every run.
        var generator = SeededGenerator("damaged HEIC outputs", fixed: 46)
        for (name, bytes) in [("portrait", portrait), ("small", small), ("gainmap", gainMap)] {
            for index in 0..<40 {
                var mutant = bytes
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    let at = Int.random(in: 24..<min(bytes.count, 4096), using: &generator)
                    mutant[at] = UInt8.random(in: 0...255, using: &generator)
                }
                files["\(name)-mutant-\(index).heic"] = mutant
            }
        }
        for (name, bytes) in files { try Data(bytes).write(to: input.appendingPathComponent(name)) }
        #expect(files.count >= 120)

        let out = try TestEnvironment.scratchDirectory("damaged-heic-out")
        let run = TestEnvironment.run(
            [TestEnvironment.mattebox, "process", input.path, "-o", out.path, "--pipeline", "upright", "--json", "-q"], timeout: 1200)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any], "\(run.errors)")
        let written = (report["photos"] as? [[String: Any]] ?? []).filter { $0["status"] as? String == "ok" }.compactMap { $0["output"] as? String }
        #expect(!written.isEmpty)
        let heifs = written.filter { $0.hasSuffix(".heic") }
        let inspected = TestEnvironment.run([TestEnvironment.mattebox, "inspect", "--json"] + heifs, timeout: 600)
        let listings = (try JSONSerialization.jsonObject(with: Data(inspected.output.utf8)) as? [[String: Any]])
            ?? [((try? JSONSerialization.jsonObject(with: Data(inspected.output.utf8))) as? [String: Any]) ?? [:]]
        #expect(inspected.status == 0 && listings.count == heifs.count, "Mattebox's own reader reads every output: \(inspected.errors)")
        for listing in listings {
            let verdict = listing["libheif"] as? String ?? ""
            #expect(verdict.hasPrefix("opens it"), "\(listing["file"] ?? "?"): libheif \(verdict)")
        }
    }
}
