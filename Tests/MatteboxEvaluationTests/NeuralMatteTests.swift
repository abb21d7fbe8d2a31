import Foundation
import MatteboxCore
import MatteboxEvaluation
import MatteboxImageIO
import MatteboxImageOps
import MatteboxPipeline
import MatteboxTestSupport
import Testing

/// The portrait matte from MODNet, installed by `mattebox models install
/// modnet` (CI runs `make models`), run through cv::dnn by the real plugin.
@Suite(.enabled(if: BuiltVisionPlugins.modnetInstalled && BuiltVisionPlugins.hasChessboards,
                "MODNet is not installed (mattebox models install modnet) or opencv-doc's photos are missing"))
struct NeuralMatteTests {
    func portrait(_ url: URL) throws -> Photo {
        var photo = try ImageDecoder.decodePhoto(at: url)
        _ = try BuiltPlugins.runner("stages:\n  - plugin: org.mattebox.portrait-matte\n    params: { model: modnet }").run(&photo)
        return photo
    }

    @Test func messiIsCutOutWithBothArmsAndLegsAndNotTheCrowd() throws {
        let photo = try portrait(BuiltVisionPlugins.chessboards.appendingPathComponent("messi5.jpg"))
        let matte = try #require(photo.auxiliary[.portraitMatte])
        #expect(photo.metadata.notes["portraitMatteMethod"]?.hasPrefix("MODNet portrait matting (cv::dnn); face found by ") == true)
        let scale = Double(matte.width) / Double(photo.primary.width)
        func value(_ x: Double, _ y: Double) -> Double { matte.sample(x: Int(x * scale), y: Int(y * scale)) }
        // Points marked by hand on the 548x342 photo.
        let person = ["left hand": (100.0, 99.0), "left arm": (140.0, 112.0), "right forearm": (340.0, 160.0),
                      "head": (235.0, 90.0), "torso": (240.0, 170.0), "kicking leg": (400.0, 258.0),
                      "standing leg": (255.0, 300.0)]
        for (part, point) in person {
            #expect(value(point.0, point.1) >= 128, "\(part) at \(point) is in the matte")
        }
        let background = ["crowd top left": (40.0, 40.0), "crowd right": (480.0, 120.0), "crowd behind": (150.0, 230.0),
                          "grass": (60.0, 320.0), "ball": (360.0, 312.0), "stands top right": (500.0, 30.0)]
        for (part, point) in background {
            #expect(value(point.0, point.1) < 128, "\(part) at \(point) is not in the matte")
        }
    }

    /// The matte is worked out on a frame 768 pixels long; a plane larger than
    /// that is brought up along the photo's colours (the fast guided filter in
    /// CVision's guided_filter.cpp), so its edges lie on the photo's edges
    /// where a plain resize of the same matte leaves them soft and off. Judged by
    /// how closely the matte's gradient follows the photo's where the matte is
    /// in between (its edge band).
    @Test func aMatteBroughtPastItsWorkingSizeFollowsThePhotosEdges() throws {
        var photo = try ImageDecoder.decodePhoto(at: BuiltVisionPlugins.chessboards.appendingPathComponent("messi5.jpg"))
        photo.primary = try ImageGeometry.resized(photo.primary, width: 4 * photo.primary.width, height: 4 * photo.primary.height)
        func matte(scale: Double) throws -> PixelImage {
            var copy = photo
            _ = try BuiltPlugins.runner("stages:\n  - plugin: org.mattebox.portrait-matte\n    params: { model: modnet, scale: \(scale) }")
                .run(&copy)
            return try #require(copy.auxiliary[.portraitMatte])
        }
        let guided = try matte(scale: 1) // 2192 pixels wide: 2.85x the working frame
        let small = try matte(scale: 0.35) // the working frame's own size: no guide
        #expect(small.width < 800 && guided.width == photo.primary.width)
        let plain = try ImageGeometry.resized(small, width: guided.width, height: guided.height)
        let colour = try ImageGeometry.resized(photo.primary, width: guided.width, height: guided.height)
        let width = guided.width, height = guided.height
        func values(_ image: PixelImage) -> [Float] {
            var out = [Float](repeating: 0, count: width * height)
            for y in 0..<height {
                for x in 0..<width {
                    var sum = 0.0
                    for c in 0..<min(3, image.channels) { sum += image.sample(x: x, y: y, channel: c) }
                    out[y * width + x] = Float(sum / Double(min(3, image.channels)))
                }
            }
            return out
        }
        func gradient(_ v: [Float]) -> [Float] {
            var out = [Float](repeating: 0, count: v.count)
            for y in 1..<(height - 1) {
                for x in 1..<(width - 1) {
                    let i = y * width + x
                    out[i] = abs(v[i + 1] - v[i - 1]) + abs(v[i + width] - v[i - width])
                }
            }
            return out
        }
        let plainValues = values(plain)
        let band = plainValues.indices.filter { plainValues[$0] > 12 && plainValues[$0] < 243 }
        let photoGradient = gradient(values(colour))
        func correlation(_ matteGradient: [Float]) -> Double {
            var sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0
            for i in band {
                let x = Double(matteGradient[i]), y = Double(photoGradient[i])
                sx += x; sy += y; sxx += x * x; syy += y * y; sxy += x * y
            }
            let n = Double(band.count)
            return (sxy / n - sx / n * sy / n) / ((sxx / n - sx * sx / n / n) * (syy / n - sy * sy / n / n)).squareRoot()
        }
        #expect(band.count > 10_000, "the matte has an edge band (\(band.count) pixels)")
        let alongGuide = correlation(gradient(values(guided))), resized = correlation(gradient(plainValues))
        #expect(alongGuide > resized + 0.1, "gradient correlation with the photo: guided \(alongGuide), plain resize \(resized)")
    }

    @Test func aPhotoWithoutPeopleGetsNoMatteAndANote() throws {
        let photo = try portrait(TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/orientation-1.jpg"))
        #expect(photo.auxiliary[.portraitMatte] == nil)
        #expect(photo.metadata.notes["portraitMatte"]?.contains("no face found") == true)
    }
}

/// Hair on tight square face crops scaled to 1024² (as face datasets such as
/// CelebAMask-HQ are cut): hair reaches the photo's edges and the top of the
/// head is cut off, so the hair must be told from the wall by the person
/// matte and found beside the temples, not only above the forehead.
@Suite(.enabled(if: BuiltVisionPlugins.modnetInstalled && BuiltVisionPlugins.eval != nil,
                "MODNet is not installed or ../shared/eval is not beside this clone"))
struct TightFaceCropTests {
    /// FASSEG faces 1, 3, 8 and 9 cut to a square as wide as the photo, from row
    /// 85 (eyes a little above the middle), scaled by libvips to 1024².
    static func tightCrops() throws -> URL {
        let source = try #require(BuiltVisionPlugins.eval).appendingPathComponent("faceparsing/fasseg_frontal02")
        func width(_ face: Int) throws -> Int {
            try ImageDecoder.decodePhoto(at: source.appendingPathComponent("rgb/\(face).bmp")).primary.width
        }
        return try FassegVariants.make("tight", faces: [1, 3, 8, 9], steps: [
            { face, _, input, output in ["crop", input, output, "0", "85", "\(try width(face))", "\(try width(face))"] },
            { face, isLabel, input, output in
                ["resize", input, output, "\(1024.0 / Double(try width(face)))", "--kernel", isLabel ? "nearest" : "lanczos3"]
            },
        ])
    }

    @Test func hairReachingTheEdgesOfATightCropIsFoundAndClosedMouthsShowNoTeeth() throws {
        let folder = try Self.tightCrops()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let rows = try FaceEvaluation(registry: BuiltPlugins.registry).fasseg(directory: folder)
        #expect(rows.count == 4 && rows.allSatisfy(\.faceFound), "\(rows.map(\.faceFound))")
        // Measured hair F1 0.91, 0.95, 0.93, 0.91 (1, 3 and 9 below 0.3 when the wall model took the hair at the edges).
        #expect(rows.allSatisfy { $0.hairF1 >= 0.75 }, "\(rows.map(\.hairF1))")
        #expect(rows.allSatisfy { $0.skinF1 >= 0.8 }, "\(rows.map(\.skinF1))")
        // Every mouth is closed. Face 8's pale upper lip, all of her skin's
        // colour, was taken for teeth before skin-coloured patches were ruled out.
        #expect(rows.allSatisfy { !$0.teethMatte }, "\(rows.map(\.teethMatte))")
    }
}

/// A face that fills the frame (issue 54, items 2 and 5): every FASSEG face cut to a square 0.7 of
/// its photo's width about the face and scaled to 1024². CenterFace, trained on faces small within
/// their photos, found 6 of these 10 when it saw them filling its input; it now also looks with the
/// photo at a half and 0.3 of its input. MODNet left face 4 with a head IoU of 0.40 (most of the
/// face out of the person matte); the face parser's person is now joined where the matte misses the
/// middle of the face it was made around.
@Suite(.enabled(if: BuiltVisionPlugins.modnetInstalled && BuiltVisionPlugins.centerfaceInstalled && BuiltVisionPlugins.faceparserInstalled
                && BuiltVisionPlugins.eval != nil, "MODNet, CenterFace or the face parser is not installed, or ../shared/eval is missing"))
struct FaceFillingTheFrameTests {
    @Test func everyFaceIsFoundAndItsPersonMatteHoldsTheHead() throws {
        let faces = Array(1...10)
        var widths: [Int: (Int, Int)] = [:]
        let source = try #require(BuiltVisionPlugins.eval).appendingPathComponent("faceparsing/fasseg_frontal02")
        for face in faces {
            let photo = try ImageDecoder.decodePhoto(at: source.appendingPathComponent("rgb/\(face).bmp")).primary
            widths[face] = (photo.width, photo.height)
        }
        func square(_ face: Int) -> (x: Int, y: Int, side: Int) {
            let (width, height) = widths[face]!
            let side = width * 7 / 10
            return (width / 2 - side / 2, max(0, min(height - side, height * 47 / 100 - side / 2)), side)
        }
        let folder = try FassegVariants.make("filling", faces: faces, steps: [
            { face, _, input, output in
                let cut = square(face)
                return ["crop", input, output, "\(cut.x)", "\(cut.y)", "\(cut.side)", "\(cut.side)"]
            },
            { face, isLabel, input, output in
                ["resize", input, output, "\(1024.0 / Double(square(face).side))", "--kernel", isLabel ? "nearest" : "lanczos3"]
            },
        ])
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let rows = try FaceEvaluation(registry: BuiltPlugins.registry).fasseg(directory: folder)
        #expect(rows.count == 10 && rows.allSatisfy(\.faceFound), "faces found: \(rows.map(\.faceFound))")
        // Measured 0.92-1.00 (face 4: 0.40 before the face parser's second opinion).
        #expect(rows.allSatisfy { $0.headIoU >= 0.85 }, "head IoU: \(rows.map(\.headIoU))")
    }
}

/// A face on its side or upside down (a person lying down, a photo whose orientation tag is lost):
/// FASSEG's faces turned a quarter and a half turn, labels with them. CenterFace misses faces more than
/// about 30 degrees from upright, so none of these was found; it now also looks at the photo turned,
/// and the face parser sees each face turned upright by the nearest quarter turn (turned, its hair F1
/// fell to 0.68 with two empty hair mattes). Serialized: each case holds one of the test process's two
/// cooperative threads for about a minute, and two at once starve the async server tests beside them.
@Suite(.serialized, .enabled(if: BuiltVisionPlugins.modnetInstalled && BuiltVisionPlugins.centerfaceInstalled && BuiltVisionPlugins.faceparserInstalled
                && BuiltVisionPlugins.eval != nil, "MODNet, CenterFace or the face parser is not installed, or ../shared/eval is missing"))
struct TurnedFaceTests {
    @Test(arguments: ["d90", "d180"])
    func aTurnedFaceIsFoundAndParsedUpright(_ turn: String) throws {
        let folder = try FassegVariants.make("turned-\(turn)", faces: [1, 3, 5, 8], steps: [
            { _, _, input, output in ["rot", input, output, turn] }
        ])
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let rows = try FaceEvaluation(registry: BuiltPlugins.registry).fasseg(directory: folder)
        #expect(rows.count == 4 && rows.allSatisfy(\.faceFound), "faces found (\(turn)): \(rows.map(\.faceFound))")
        // Hair F1 measured upright 0.95, 0.96, 0.95, 0.96; turned a quarter 0.95, 0.97, 0.95, 0.96, a half 0.93, 0.96,
        // 0.94, 0.95 (head IoU down to 0.85: MODNet on face 3 upside down).
        #expect(rows.allSatisfy { $0.hairF1 >= 0.85 && $0.skinF1 >= 0.85 && $0.headIoU >= 0.8 },
                "\(turn): hair \(rows.map(\.hairF1)), skin \(rows.map(\.skinF1)), head \(rows.map(\.headIoU))")
    }
}
