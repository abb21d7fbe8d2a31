import Foundation
import MatteboxCore
import MatteboxImageOps
import MatteboxTestSupport
import Testing

/// The portrait effect through the built plugin, on scenes whose truth is
/// known by construction: a textured subject plane (disparity 1) with a soft
/// matte in front of a textured background plane (disparity 0.2) that holds
/// single bright points, and a middle plane (0.6) with a point of its own.
/// Disparity is scaled to 0...1 between its extremes, so the background is 0,
/// the middle plane 0.5 and the subject 1; the blur radius at aperture N is
/// max-blur x long side x (1/N - 1/16) / (1/1.4 - 1/16) x |disparity - focus|.
@Suite struct PortraitEffectTests {
    static let width = 640, height = 480
    static let subjectCentre = (x: 320.0, y: 300.0), subjectRadius = 110.0, edge = 6.0
    /// Bright points on the dark far background, and one on the middle plane (x < 120).
    static let farLights = [(x: 520, y: 90), (x: 560, y: 400)]
    static let middleLight = (x: 60, y: 240)

    /// The roles the app and `render` take as something to render from (`ImageRole.portraitEffectSources`,
    /// from the role table) are each an optional input the built plugin declares.
    @Test func theSourcesTheRoleTableNamesAreThePluginsOwnInputs() throws {
        let plugin = try #require(BuiltPlugins.registry.plugin("org.mattebox.portrait-effect"))
        let optional = Set(plugin.description.inputs.filter(\.optional).map(\.role.rawValue))
        #expect(!ImageRole.portraitEffectSources.isEmpty)
        for role in ImageRole.portraitEffectSources { #expect(optional.contains(role.rawValue), "\(role.rawValue)") }
    }

    static func apertureStrength(_ n: Double) -> Double { (1 / n - 1 / 16) / (1 / 1.4 - 1 / 16) }
    static func radius(aperture n: Double, disparityDifference: Double) -> Double {
        0.03 * Double(width) * apertureStrength(n) * disparityDifference
    }

    /// The subject's matte, 0...1: a disc with a linear edge `edge` px wide.
    static func matteValue(x: Int, y: Int) -> Double {
        let distance = hypot(Double(x) - subjectCentre.x, Double(y) - subjectCentre.y)
        return min(1, max(0, (subjectRadius - distance) / edge + 0.5))
    }

    /// A 16-bit photo (so the faint plateau of a one-pixel light's disc is measurable).
    struct Scene {
        var photo: PixelImage
        var matte: PixelImage
        var disparity: PixelImage
    }

    /// Background texture: dark (so lights stand out) with a gentle pattern; the subject: warm stripes.
    static func backgroundColour(x: Int, y: Int) -> [Double] {
        let dark = (x > 440 && y < 200) || (x > 480 && y > 320) || (x < 120 && y > 180 && y < 300)
        if dark { return [0.04, 0.04, 0.05] }
        let t = 0.5 + 0.2 * sin(Double(x) * 0.21) * cos(Double(y) * 0.17)
        return [0.15 + 0.3 * t, 0.35 + 0.2 * t, 0.55]
    }

    static func subjectColour(x: Int, y: Int) -> [Double] {
        (x / 7) % 2 == 0 ? [0.85, 0.3, 0.2] : [0.7, 0.55, 0.15]
    }

    static func scene(withSubject: Bool = true, lights: Bool = true) -> Scene {
        let photo = PixelImage(width: width, height: height, channels: 3, format: .uint16)
        let matte = PixelImage(width: width, height: height, channels: 1, format: .uint8)
        let disparity = PixelImage(width: width, height: height, channels: 1, format: .float32)
        let pixels = photo.data.assumingMemoryBound(to: UInt16.self)
        let matteBytes = matte.data.assumingMemoryBound(to: UInt8.self)
        let depth = disparity.data.assumingMemoryBound(to: Float.self)
        for y in 0..<height {
            for x in 0..<width {
                let a = matteValue(x: x, y: y)
                var colour = backgroundColour(x: x, y: y)
                if lights, farLights.contains(where: { $0 == (x, y) }) || (x, y) == middleLight { colour = [1, 1, 1] }
                if withSubject {
                    let subject = subjectColour(x: x, y: y)
                    colour = (0..<3).map { a * subject[$0] + (1 - a) * colour[$0] }
                }
                for c in 0..<3 { pixels[(y * width + x) * 3 + c] = UInt16((colour[c] * 65535).rounded()) }
                matteBytes[y * width + x] = UInt8((a * 255).rounded())
                let plane: Float = x < 120 ? 0.6 : 0.2
                depth[y * width + x] = a > 0.5 ? 1.0 : plane
            }
        }
        return Scene(photo: photo, matte: matte, disparity: disparity)
    }

    static func render(_ scene: Scene, _ parameters: String, matte: Bool = true, depth: Bool = true, orientation: Int = 1) throws -> Photo {
        var photo = Photo(primary: scene.photo.copy())
        photo.metadata.orientation = ExifOrientation(orientation)!
        if matte { photo.setAuxiliary(scene.matte.copy(), for: .portraitMatte) }
        if depth { photo.setAuxiliary(scene.disparity.copy(), for: .disparity) }
        _ = try BuiltPlugins.runner("""
            stages:
              - plugin: org.mattebox.portrait-effect
                params: { \(parameters) }
            """, roles: [.portraitMatte, .disparity]).run(&photo)
        return photo
    }

    /// Channel 0 of a 16-bit image as 0...1.
    static func value(_ image: PixelImage, _ x: Int, _ y: Int, channel: Int = 0) -> Double {
        image.sample(x: x, y: y, channel: channel) / 65535
    }

    /// A light's bokeh: the diameter of the region brighter than half its
    /// plateau above the dark background (2 sqrt(area / pi)), and how flat the
    /// plateau's inner half is (standard deviation over mean).
    static func bokeh(_ image: PixelImage, around light: (x: Int, y: Int), reach: Int) -> (diameter: Double, flatness: Double) {
        let base = 0.04
        let plateau = value(image, light.x, light.y) - base
        var area = 0, inner: [Double] = []
        for y in max(0, light.y - reach)..<min(height, light.y + reach + 1) {
            for x in max(0, light.x - reach)..<min(width, light.x + reach + 1) {
                let lift = value(image, x, y) - base
                if lift > plateau / 2 { area += 1 }
                if hypot(Double(x - light.x), Double(y - light.y)) < Double(reach) / 4 { inner.append(lift) }
            }
        }
        let mean = inner.reduce(0, +) / Double(inner.count)
        let spread = sqrt(inner.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(inner.count))
        return (2 * (Double(area) / .pi).squareRoot(), spread / mean)
    }

    @Test(arguments: [2.0, 2.8]) func aPointLightBecomesAFlatDiscSizedByDisparityAndAperture(aperture: Double) throws {
        let rendered = try Self.render(Self.scene(), "aperture: \(aperture), highlights: 0").primary
        let far = Self.radius(aperture: aperture, disparityDifference: 1)
        for light in Self.farLights {
            let disc = Self.bokeh(rendered, around: light, reach: Int(far * 1.6))
            #expect(abs(disc.diameter - 2 * far) <= 0.1 * 2 * far, "far light at \(light): diameter \(disc.diameter), expected \(2 * far)")
            #expect(disc.flatness < 0.1, "the disc's centre is flat: \(disc.flatness)")
        }
        let middle = Self.radius(aperture: aperture, disparityDifference: 0.5)
        let disc = Self.bokeh(rendered, around: Self.middleLight, reach: Int(middle * 1.6))
        #expect(abs(disc.diameter - 2 * middle) <= 0.1 * 2 * middle, "middle light: diameter \(disc.diameter), expected \(2 * middle)")
    }

    /// With a matte alone the background lies at the far end, blurred on reduced copies and
    /// enlarged: the discs keep their size and flat top. The ground the subject stands on is the
    /// exception: the light beside its lowest point lies on the ground at its distance, nearly sharp.
    @Test(arguments: [1.4, 2.8]) func aMatteAloneBlursTheBackgroundFarAndTheGroundAtTheFeetNot(aperture: Double) throws {
        let rendered = try Self.render(Self.scene(), "aperture: \(aperture), highlights: 0", depth: false)
        let far = Self.radius(aperture: aperture, disparityDifference: 1)
        for light in [Self.farLights[0], Self.middleLight] {
            let disc = Self.bokeh(rendered.primary, around: light, reach: Int(far * 1.6))
            #expect(abs(disc.diameter - 2 * far) <= 0.1 * 2 * far, "light at \(light): diameter \(disc.diameter), expected \(2 * far)")
            #expect(disc.flatness < 0.15, "the disc's centre is flat: \(disc.flatness)")
        }
        let onTheGround = Self.bokeh(rendered.primary, around: Self.farLights[1], reach: Int(far * 1.6))
        #expect(onTheGround.diameter < 0.3 * 2 * far, "the light beside the feet is on the ground: diameter \(onTheGround.diameter)")
        let notes = rendered.metadata.notes
        #expect(notes["portraitEffect"]?.contains("layered estimate from the portrait matte") == true)
        #expect(notes["portraitEffect"]?.contains("ground") == true, "\(notes)")
    }

    /// The ground is looked for below the subject as the photo is seen, not as its pixels are stored:
    /// the scene stored turned a quarter (EXIF orientation 6, as a phone held upright stores it)
    /// renders as the upright scene does, the light beside the feet on the ground and nearly sharp.
    /// (Before, the "ground" was the background beside the subject, where the stored rows end.)
    @Test func aMatteAloneFindsTheGroundBelowTheSubjectAsThePhotoIsSeen() throws {
        let scene = Self.scene()
        // Orientation 6 is seen turned a quarter clockwise, so it stores the upright scene turned back.
        let storedTurn = { (image: PixelImage) in try ImageGeometry.apply(.rotate270, to: image) }
        let stored = Scene(photo: try storedTurn(scene.photo), matte: try storedTurn(scene.matte), disparity: try storedTurn(scene.disparity))
        let turned = try Self.render(stored, "aperture: 2, highlights: 0", depth: false, orientation: 6)
        let seen = try ImageGeometry.apply(.rotate90, to: turned.primary)
        let far = Self.radius(aperture: 2, disparityDifference: 1)
        let onTheGround = Self.bokeh(seen, around: Self.farLights[1], reach: Int(far * 1.6))
        #expect(onTheGround.diameter < 0.3 * 2 * far, "the light beside the feet is on the ground: diameter \(onTheGround.diameter)")
        #expect(turned.metadata.notes["portraitEffect"]?.contains("the ground under the subject's feet") == true, "\(turned.metadata.notes)")
        let upright = try Self.render(scene, "aperture: 2, highlights: 0", depth: false).primary
        var difference = 0.0
        for y in 0..<Self.height { for x in 0..<Self.width { difference += abs(Self.value(seen, x, y) - Self.value(upright, x, y)) } }
        difference /= Double(Self.width * Self.height)
        #expect(difference < 0.01, "turned and seen upright, the render is the upright scene's: mean difference \(difference)")
    }

    @Test func fSixteenLeavesThePhotoAsItWasAndWiderNeverBlursLess() throws {
        let scene = Self.scene()
        let sharp = try Self.render(scene, "aperture: 16").primary
        var worst = 0.0
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                for c in 0..<3 { worst = max(worst, abs(sharp.sample(x: x, y: y, channel: c) - scene.photo.sample(x: x, y: y, channel: c))) }
            }
        }
        #expect(worst <= 257, "f/16 changes the photo by at most one 8-bit level: \(worst / 257) levels")

        // Blur measured as the mean change of the background from the photo.
        func change(_ aperture: Double) throws -> Double {
            let image = try Self.render(scene, "aperture: \(aperture)").primary
            var total = 0.0, count = 0
            for y in stride(from: 0, to: Self.height, by: 3) {
                for x in stride(from: 0, to: Self.width, by: 3) where Self.matteValue(x: x, y: y) == 0 {
                    total += abs(image.sample(x: x, y: y) - scene.photo.sample(x: x, y: y))
                    count += 1
                }
            }
            return total / Double(count)
        }
        let changes = try [1.4, 2, 2.8, 4.5, 8, 16].map(change)
        for (wider, narrower) in zip(changes, changes.dropFirst()) {
            #expect(wider >= narrower, "a smaller f-number never blurs less: \(changes)")
        }
        #expect(changes[0] > changes[4] * 2)
    }

    @Test func theSubjectStaysAsItWasInsideItsMatte() throws {
        let scene = Self.scene()
        let rendered = try Self.render(scene, "aperture: 1.4").primary
        var worst = 0.0, checked = 0
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                // matte >= 0.99, and a few pixels in from the edge
                let distance = hypot(Double(x) - Self.subjectCentre.x, Double(y) - Self.subjectCentre.y)
                guard Self.matteValue(x: x, y: y) >= 0.99, distance < Self.subjectRadius - Self.edge else { continue }
                checked += 1
                for c in 0..<3 { worst = max(worst, abs(rendered.sample(x: x, y: y, channel: c) - scene.photo.sample(x: x, y: y, channel: c))) }
            }
        }
        #expect(checked > 10_000)
        #expect(worst <= 257, "inside the subject the render equals the photo within one level: \(worst / 257)")
    }

    /// The halo a matte-weighted Gaussian blur leaves: the subject's colour smeared outwards.
    @Test func theSubjectsColourDoesNotBleedIntoTheBlurredBackground() throws {
        let aperture = 2.0
        let scene = Self.scene()
        let rendered = try Self.render(scene, "aperture: \(aperture), highlights: 0").primary
        // The truth outside the subject: the background alone, rendered the same way.
        var backgroundOnly = Self.scene(withSubject: false)
        backgroundOnly.matte = scene.matte
        backgroundOnly.disparity = scene.disparity
        let reference = try Self.render(backgroundOnly, "aperture: \(aperture), highlights: 0").primary
        // The naive renderer: alpha * photo + (1 - alpha) * Gaussian(photo), sigma half the disc's radius.
        let radius = Self.radius(aperture: aperture, disparityDifference: 1)
        let naive = try Self.gaussianComposite(scene, sigma: radius / 2)
        var ours = 0.0, theirs = 0.0, count = 0
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let distance = hypot(Double(x) - Self.subjectCentre.x, Double(y) - Self.subjectCentre.y) - Self.subjectRadius
                guard distance > Self.edge, distance < radius else { continue }
                count += 1
                for c in 0..<3 {
                    let truth = Self.value(reference, x, y, channel: c)
                    ours += abs(Self.value(rendered, x, y, channel: c) - truth)
                    theirs += abs(naive[(y * Self.width + x) * 3 + c] - truth)
                }
            }
        }
        #expect(count > 1000)
        #expect(ours <= theirs / 3, "colour bleeding in the band outside the subject: ours \(ours / Double(count)), Gaussian \(theirs / Double(count))")
    }

    static func gaussianComposite(_ scene: Scene, sigma: Double) throws -> [Double] {
        let reach = Int(ceil(sigma * 3))
        let kernel = (-reach...reach).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = kernel.reduce(0, +)
        var source = [Double](repeating: 0, count: width * height * 3)
        for y in 0..<height { for x in 0..<width { for c in 0..<3 { source[(y * width + x) * 3 + c] = value(scene.photo, x, y, channel: c) } } }
        func pass(_ input: [Double], horizontal: Bool) -> [Double] {
            var output = input
            for y in 0..<height {
                for x in 0..<width {
                    for c in 0..<3 {
                        var sum = 0.0
                        for (k, weight) in zip(-reach...reach, kernel) {
                            let xx = horizontal ? min(max(x + k, 0), width - 1) : x
                            let yy = horizontal ? y : min(max(y + k, 0), height - 1)
                            sum += weight * input[(yy * width + xx) * 3 + c]
                        }
                        output[(y * width + x) * 3 + c] = sum / total
                    }
                }
            }
            return output
        }
        let blurred = pass(pass(source, horizontal: true), horizontal: false)
        return (0..<(width * height * 3)).map { index in
            let pixel = index / 3
            let a = matteValue(x: pixel % width, y: pixel / width)
            return a * source[index] + (1 - a) * blurred[index]
        }
    }

    /// A cut-out's colours at soft edges are the foreground's, not the old background's.
    @Test func aCutOutEstimatesTheForegroundColourAtSoftEdges() throws {
        let scene = Self.scene(lights: false)
        let photo = try Self.render(scene, "background: transparent", depth: false)
        let alpha = try #require(photo.auxiliary[.alpha], "the cut-out has an alpha image")
        #expect(alpha.width == Self.width && alpha.height == Self.height)
        var estimated = 0.0, composite = 0.0, count = 0
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let a = Self.matteValue(x: x, y: y)
                guard a > 0.15, a < 0.85 else { continue }
                count += 1
                #expect(abs(alpha.sample(x: x, y: y) / 255 - a) < 0.05)
                let truth = Self.subjectColour(x: x, y: y)
                for c in 0..<3 {
                    estimated += abs(Self.value(photo.primary, x, y, channel: c) - truth[c])
                    composite += abs(Self.value(scene.photo, x, y, channel: c) - truth[c])
                }
            }
        }
        #expect(count > 500)
        // At least 30% closer to the true foreground than the photo's mixed colours are.
        #expect(estimated <= composite * 0.7, "foreground error \(estimated / Double(count)) vs composite \(composite / Double(count))")
        // Inside the subject the colours are the photo's.
        #expect(abs(Self.value(photo.primary, 320, 300) - Self.value(scene.photo, 320, 300)) < 1.0 / 255)
    }

    /// The replacement image is read turned upright by its EXIF orientation
    /// (stored turned a quarter, orientation 6) and scaled to cover the photo:
    /// the pattern's red block lands top left, its blue bar bottom right.
    @Test func aBackgroundImageIsReadUprightAndCoversThePhoto() throws {
        let pattern = TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/orientation-6.jpg")
        let photo = try Self.render(Self.scene(lights: false), "background: image, background-image: \"\(pattern.path)\"", depth: false)
        func colour(_ x: Int, _ y: Int) -> [Double] { (0..<3).map { Self.value(photo.primary, x, y, channel: $0) } }
        let red = colour(40, 40), blue = colour(600, 465)
        #expect(red[0] > 0.75 && red[1] < 0.25 && red[2] < 0.25, "top left \(red)")
        #expect(blue[2] > 0.7 && blue[0] < 0.25, "bottom right \(blue)")
        // The subject stays as it was inside its matte.
        #expect(abs(Self.value(photo.primary, 320, 300) - Self.value(Self.scene().photo, 320, 300)) < 1.0 / 255)
    }

    @Test func aBackgroundFileThatIsNoImageFailsNamingIt() throws {
        let folder = try TestEnvironment.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("notes.jpg")
        try Data("not a picture".utf8).write(to: file)
        #expect {
            _ = try Self.render(Self.scene(lights: false), "background: image, background-image: \"\(file.path)\"", depth: false)
        } throws: { error in
            "\(error)".contains(file.path) && "\(error)".contains("not an image libvips can read")
        }
    }

    /// A FIFO named as the background is refused, never opened: reading it would wait for a writer.
    @Test func aBackgroundThatIsAFIFOFailsWithoutWaitingForIt() throws {
        let folder = try TestEnvironment.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("wall.jpg")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        #expect {
            _ = try Self.render(Self.scene(lights: false), "background: image, background-image: \"\(fifo.path)\"", depth: false)
        } throws: { error in
            "\(error)".contains(fifo.path) && "\(error)".contains("not a regular file")
        }
    }

    /// Issue 57 (8): a copy is no render; the error says what the photo lacks and what would give it.
    @Test func withNeitherDepthNorMatteThePhotoFailsSayingWhatWouldGiveIt() throws {
        let scene = Self.scene()
        #expect {
            _ = try Self.render(scene, "aperture: 1.4", matte: false, depth: false)
        } throws: { error in
            let words = "\(error)"
            return words.contains("no depth and no portrait matte") && words.contains("A photo with depth")
                && !words.contains("(not found)")
        }
    }

    @Test func depthAloneFocusesOnTheNearRegionAndTheRenderDropsDepthAndMattes() throws {
        let scene = Self.scene()
        let photo = try Self.render(scene, "aperture: 2", matte: false)
        let note = try #require(photo.metadata.notes["portraitEffect"])
        #expect(note.contains("sharpest near region") && note.contains("the photo's own disparity"), "\(note)")
        // The near region is the subject: it stays sharp, the background blurs.
        #expect(abs(Self.value(photo.primary, 320, 300) - Self.value(scene.photo, 320, 300)) < 1.0 / 255)
        #expect(photo.auxiliary[.disparity] == nil && photo.metadata.notes["portraitEffectRemoved"]?.contains("disparity") == true)
        let kept = try Self.render(scene, "aperture: 2, keep-auxiliary: true")
        #expect(kept.auxiliary[.disparity] != nil && kept.auxiliary[.portraitMatte] != nil)
    }

    @Test func focusingOnTheBackgroundBlursTheSubjectInstead() throws {
        let scene = Self.scene()
        // Focus on the far plane (upper right): the background stays sharp.
        let photo = try Self.render(scene, "aperture: 2, focus: \"0.8,0.1\"", matte: false)
        #expect(photo.metadata.notes["portraitEffect"]?.contains("the point 0.80,0.10") == true)
        var background = 0.0, subject = 0.0
        for x in 150..<200 {
            background += abs(photo.primary.sample(x: x, y: 60) - scene.photo.sample(x: x, y: 60))
            subject += abs(photo.primary.sample(x: x + 120, y: 300) - scene.photo.sample(x: x + 120, y: 300))
        }
        #expect(background < 257 * 50, "the focused background is sharp")
        #expect(subject > background * 10, "the subject, in front of the focal plane, blurs")
    }

    /// A gain map whose values the host can say (Apple's) is blurred with the photo; one it cannot
    /// (Samsung's) would bring the background's highlights back sharp on an HDR screen, so it is
    /// removed, and the note says so.
    @Test func aGainMapOfUnknownMeaningIsRemovedAndApplesIsRendered() throws {
        let scene = Self.scene()
        let map = PixelImage(width: Self.width / 2, height: Self.height / 2, channels: 1, format: .uint8)
        let bytes = map.data.assumingMemoryBound(to: UInt8.self)
        for i in 0..<(map.width * map.height) { bytes[i] = (i % map.width / 3) % 2 == 0 ? 255 : 0 }
        var photo = Photo(primary: scene.photo.copy())
        photo.setAuxiliary(scene.matte.copy(), for: .portraitMatte)
        photo.setAuxiliary(scene.disparity.copy(), for: .disparity)
        photo.setAuxiliary(map.copy(), for: .appleHDRGainMap)
        photo.setAuxiliary(map.copy(), for: "com.samsung.hdrgainmap")
        _ = try BuiltPlugins.runner("""
            stages:
              - plugin: org.mattebox.portrait-effect
                params: { aperture: 2 }
            """, roles: [.portraitMatte, .disparity, .appleHDRGainMap, "com.samsung.hdrgainmap"]).run(&photo)
        let note = try #require(photo.metadata.notes["portraitEffect"])
        #expect(photo.auxiliary["com.samsung.hdrgainmap"] == nil && note.contains("com.samsung.hdrgainmap left out"), "\(note)")
        let rendered = try #require(photo.auxiliary[.appleHDRGainMap])
        #expect(note.contains("the HDR gain map rendered alike") && !rendered.hasSamePixels(as: map), "\(note)")
    }
}
