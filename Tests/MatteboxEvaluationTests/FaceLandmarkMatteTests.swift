import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxPipeline
import MatteboxTestSupport
import Testing

/// The hair, skin and teeth mattes drawn from MediaPipe's face mesh
/// (`mattebox models install facemesh`, converted to ONNX and run by cv::dnn),
/// through the real plugins on opencv-doc's messi5.jpg.
@Suite(.enabled(if: BuiltVisionPlugins.facemeshInstalled && BuiltVisionPlugins.modnetInstalled && BuiltVisionPlugins.hasChessboards,
                "the face mesh or MODNet is not installed (make models), or opencv-doc's photos are missing"))
struct FaceLandmarkMatteTests {
    static var messi: URL { BuiltVisionPlugins.chessboards.appendingPathComponent("messi5.jpg") }

    /// A matte's value at a point of the 548x342 photo.
    func value(_ matte: PixelImage, of photo: Photo, _ point: (Double, Double)) -> Double {
        let scale = Double(matte.width) / Double(photo.primary.width)
        return matte.sample(x: Int(point.0 * scale), y: Int(point.1 * scale))
    }

    @Test func skinCoversTheFaceForearmsHandAndLegsButNotTheKitGrassOrBall() throws {
        var photo = try ImageDecoder.decodePhoto(at: Self.messi)
        _ = try BuiltPlugins.runner("""
            stages:
              - plugin: org.mattebox.portrait-matte
                params: { model: modnet }
              - plugin: org.mattebox.semantic-mattes
                params: { model: none, landmarks: facemesh, mattes: "hair,skin" }
            """).run(&photo)
        let skin = try #require(photo.auxiliary[.skinMatte])
        // Marked by hand. Before the face mesh only the face and neck were skin.
        let bare = ["face": (232.0, 103.0), "left forearm": (120.0, 106.0), "right forearm": (330.0, 152.0),
                    "right hand": (358.0, 162.0), "kicking leg's shin": (350.0, 250.0), "standing leg's knee": (243.0, 280.0)]
        for (part, point) in bare {
            #expect(value(skin, of: photo, point) >= 128, "\(part) at \(point) is skin")
        }
        let covered = ["shirt": (200.0, 133.0), "shirt's stripe": (240.0, 190.0), "shorts": (287.0, 240.0),
                       "sock": (400.0, 265.0), "grass": (133.0, 300.0), "grass at the right": (467.0, 287.0),
                       "ball": (360.0, 310.0), "crowd": (480.0, 120.0)]
        for (part, point) in covered {
            #expect(value(skin, of: photo, point) < 128, "\(part) at \(point) is not skin")
        }
        // The hair sits above the face, never on it.
        let hair = try #require(photo.auxiliary[.hairMatte])
        #expect(value(hair, of: photo, (232.0, 78.0)) >= 128, "hair above the forehead")
        #expect(value(hair, of: photo, (232.0, 103.0)) < 128, "no hair on the face")
    }

    @Test func aPersonMatteThatMissesTheFaceIsNotTrustedAndTheMattesComeFromAroundTheFace() throws {
        var photo = try ImageDecoder.decodePhoto(at: Self.messi)
        // An empty person matte: what MODNet gave a dark suit in a crowd.
        let width = photo.primary.width / 2, height = photo.primary.height / 2
        photo.auxiliary[.portraitMatte] = PixelImage(width: width, height: height, channels: 1, format: .uint8)
        _ = try BuiltPlugins.runner("""
            stages:
              - plugin: org.mattebox.semantic-mattes
                params: { model: none, landmarks: facemesh, mattes: "hair,skin" }
            """).run(&photo)
        let note = photo.metadata.notes["semanticMattes"] ?? ""
        #expect(note.contains("the portrait matte missed the face"), "\(note)")
        let hair = try #require(photo.auxiliary[.hairMatte], "a hair matte although the person matte was empty: \(note)")
        #expect(value(hair, of: photo, (232.0, 78.0)) >= 128, "hair above the forehead")
        let skin = try #require(photo.auxiliary[.skinMatte])
        #expect(value(skin, of: photo, (232.0, 103.0)) >= 128, "the face is skin")
    }

    @Test(.enabled(if: BuiltVisionPlugins.poseInstalled, "the pose model is not installed (mattebox models install pose)"))
    func aPersonMatteMissingAnArmIsNamedByThePoseKeypoints() throws {
        var photo = try ImageDecoder.decodePhoto(at: Self.messi)
        _ = try BuiltPlugins.runner("stages:\n  - plugin: org.mattebox.portrait-matte\n    params: { model: modnet }").run(&photo)
        let matte = try #require(photo.auxiliary[.portraitMatte])
        // The arm reaching out at the photo's left (his right hand and forearm), cut out of the matte by hand.
        let scale = Double(matte.width) / Double(photo.primary.width)
        let cut = PixelImage(width: matte.width, height: matte.height, channels: 1, format: .uint8)
        for y in 0..<matte.height {
            for x in 0..<matte.width {
                let (px, py) = (Double(x) / scale, Double(y) / scale)
                let inArm = px < 150 && py > 70 && py < 135
                cut.data.storeBytes(of: inArm ? 0 : UInt8(matte.sample(x: x, y: y)), toByteOffset: y * cut.bytesPerRow + x, as: UInt8.self)
            }
        }
        photo.auxiliary[.portraitMatte] = cut
        _ = try BuiltPlugins.runner("""
            stages:
              - plugin: org.mattebox.semantic-mattes
                params: { model: none, landmarks: facemesh, pose: pose, mattes: "hair,skin" }
            """).run(&photo)
        let note = photo.metadata.notes["semanticMattes"] ?? ""
        #expect(note.contains("the portrait matte misses the right wrist"), "\(note)")
        #expect(!note.contains("left wrist") && !note.contains("knee"), "only the arm cut out is named: \(note)")
    }
}
