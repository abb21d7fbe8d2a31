import Foundation
import MatteboxTestSupport
import Testing

/// FASSEG development faces remade by libvips (turned, cropped, scaled) into
/// a new folder laid out as fasseg_frontal02, photos and labels alike, so the
/// real plugins can be scored on faces framed otherwise.
enum FassegVariants {
    /// One libvips step: the photo or label (`isLabel`, to be sampled
    /// nearest-neighbour) of `face` from `input` to `output`, as the
    /// arguments after `vips`.
    typealias Step = (_ face: Int, _ isLabel: Bool, _ input: String, _ output: String) throws -> [String]

    /// Runs `steps` in order on each face's photo and label (the first reads
    /// the original, the last writes `<folder>/{rgb,labels}/N.bmp`); returns
    /// the folder, inside a scratch directory the caller removes.
    static func make(_ name: String, faces: [Int], steps: [Step]) throws -> URL {
        let source = try #require(BuiltVisionPlugins.eval).appendingPathComponent("faceparsing/fasseg_frontal02")
        let scratch = try TestEnvironment.scratchDirectory(name)
        let folder = scratch.appendingPathComponent("fasseg_frontal02")
        for part in ["rgb", "labels"] {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent(part), withIntermediateDirectories: true)
        }
        for face in faces {
            for part in ["rgb", "labels"] {
                var input = source.appendingPathComponent("\(part)/\(face).bmp").path
                for (index, step) in steps.enumerated() {
                    let output = index == steps.count - 1
                        ? folder.appendingPathComponent("\(part)/\(face).bmp").path
                        : scratch.appendingPathComponent("\(part)-\(face)-\(index).v").path
                    let run = TestEnvironment.run(["/usr/bin/vips"] + (try step(face, part == "labels", input, output)))
                    #expect(run.status == 0, "\(run.errors)")
                    input = output
                }
            }
        }
        return folder
    }
}
