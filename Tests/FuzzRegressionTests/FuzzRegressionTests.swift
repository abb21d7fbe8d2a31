import Foundation
import MatteboxFuzzTargets
import MatteboxTestSupport
import Testing

/// The fuzz targets without libFuzzer: every input that ever broke a parser
/// (Tests/Fuzz/Regressions/TARGET), the small seeds kept beside them
/// (Tests/Fuzz/Seeds/TARGET) and the sample files are replayed through
/// each target, then a few thousand mutants of them from a fixed, printed seed.
/// A crash or a hang fails the whole test run, which is the point.
@Suite struct FuzzRegressionTests {
    static let root = TestEnvironment.packageRoot

    /// The files each target starts from: its regressions and the samples that suit it.
    static func inputs(for target: String) -> [URL] {
        let manager = FileManager.default
        func files(_ folder: String, _ extensions: [String]) -> [URL] {
            let url = root.appendingPathComponent(folder)
            return ((try? manager.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)) ?? [])
                .filter { extensions.isEmpty || extensions.contains($0.pathExtension.lowercased()) }.sorted { $0.path < $1.path }
        }
        var samples: [URL]
        switch target {
        case "jpeg-segments", "exif", "motion-photo-xmp": samples = files("Samples/photos", ["jpg"])
        case "png-text": samples = files("Samples/photos", ["png"])
        case "pipeline-yaml": samples = files("Samples/pipelines", ["yaml"])
        case "isobmff", "heif-motion-photo", "movie":
            samples = TestEnvironment.shared.map { shared in
                ((try? manager.contentsOfDirectory(at: shared.appendingPathComponent("heic-samples"), includingPropertiesForKeys: nil)) ?? [])
                    .filter { ["heic"].contains($0.pathExtension.lowercased()) }.sorted { $0.path < $1.path }
            } ?? []
        case "mpf-index", "extended-xmp", "dynamic-depth":
            samples = TestEnvironment.shared.map { shared in
                ((try? manager.contentsOfDirectory(at: shared.appendingPathComponent("depth-samples"), includingPropertiesForKeys: nil)) ?? [])
                    .filter { $0.pathExtension.lowercased() == "jpg" }.sorted { $0.path < $1.path }
            } ?? []
        default: samples = []
        }
        return files("Tests/Fuzz/Regressions/\(target)", []) + files("Tests/Fuzz/Seeds/\(target)", []) + samples
    }

    static let builtIn: [String: [[UInt8]]] = [
        "http-range": ["bytes=0-99", "bytes=-500", "bytes=1000-", "bytes=0-18446744073709551615", "bytes=-99999999999999999999"].map { Array($0.utf8) },
        "pfm": [Array("Pf\n3 2\n-1.0\n".utf8) + [UInt8](repeating: 0, count: 24), Array("PF\n1 1\n1.0\n".utf8) + [UInt8](repeating: 0x3F, count: 12)],
        "bmp": [Array("BM".utf8) + [UInt8](repeating: 0, count: 52)],
        "exif": [[0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0]],
    ]

    @Test(arguments: FuzzTargets.all.keys.sorted()) func everyKnownInputAndThousandsOfMutantsAreReadWithoutACrash(target: String) throws {
        let run = try #require(FuzzTargets.all[target])
        var corpus = try Self.inputs(for: target).map { [UInt8](try Data(contentsOf: $0)) }
        corpus += Self.builtIn[target] ?? []
        try #require(!corpus.isEmpty, "no inputs for \(target)")
        for input in corpus { run(input) }
        // Mutants: flipped bytes, cuts and insertions, from a seed printed so a failure can be replayed.
        let seed = UInt64(0x6D61_7474 ^ target.utf8.reduce(0) { $0 &* 31 &+ UInt64($1) })
        print("fuzz-regression \(target): \(corpus.count) inputs, mutant seed \(seed)")
        var generator = SeededGenerator(seed: seed)
        for round in 0..<2000 {
            var bytes = corpus[round % corpus.count]
            if bytes.count > 65536 { bytes = Array(bytes.prefix(65536)) }
            guard !bytes.isEmpty else { continue }
            switch generator.next() % 3 {
            case 0:
                for _ in 0..<(1 + Int(generator.next() % 8)) { bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next()) }
            case 1: bytes = Array(bytes.prefix(Int(generator.next() % UInt64(bytes.count + 1))))
            default:
                let at = Int(generator.next() % UInt64(bytes.count))
                bytes.insert(contentsOf: [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0], at: at)
            }
            run(bytes)
        }
    }
}

/// SplitMix64: a generator whose seed is printed, so a failing mutant can be made again.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
