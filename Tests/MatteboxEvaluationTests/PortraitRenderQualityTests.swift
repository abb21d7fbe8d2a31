import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxImageOps
import MatteboxPipeline
import MatteboxTestSupport
import MatteboxVision
import Testing

/// The portrait effect judged where it matters: on real phone photos whose
/// depth the phone made (coarse, 8-bit, its edges a few pixels off the
/// photo's), by the rule that a blur never creates an edge. The measure is
/// the project's own (`CreatedEdges`, in the vision library), checked here
/// first against renders it must pass and fail; the renderer before this
/// measure existed scored 8.0 per mille (longest line 169 px) on the pug.
@Suite(.serialized) struct PortraitRenderQualityTests {
    static let shared = TestEnvironment.shared
    static let noShared = "../shared/heic-samples and depth-samples are not beside this clone; the real-photo render checks are skipped"

    /// The shared phone photos that carry what `keep` asks for.
    static func sharedPhotos(_ keep: (Photo) -> Bool) -> [String] {
        guard let shared else { return [] }
        return ["heic-samples", "depth-samples"].flatMap { folder -> [String] in
            let directory = shared.appendingPathComponent(folder)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            return names.sorted().compactMap { name in
                guard let photo = try? ImageDecoder.decodePhoto(at: directory.appendingPathComponent(name)), keep(photo) else { return nil }
                return "\(folder)/\(name)"
            }
        }
    }

    /// Every shared phone HEIC with the phone's own depth. Not yet the phone JPEGs with depth
    /// (iPhone X MPF, Lens Blur): on their sharp, high-contrast backgrounds the measure counts
    /// the slope any blur of 8-30 px spreads over what was flat (a plain Gaussian blur of the
    /// iPhone X photo, sigma 8 or 15 px, scores 4.2 and 6.6 per mille), and the renders score
    /// more than that (issue 43's note); they are rendered from their own depth in
    /// PhoneDepthCommandTests.
    static let photosWithDepth = sharedPhotos { $0.auxiliary[.disparity] != nil || $0.auxiliary[.depth] != nil }
        .filter { $0.lowercased().hasSuffix(".heic") }
    /// Every shared phone portrait with the phone's portrait matte and no depth.
    static let portraitsWithAMatteAlone = sharedPhotos {
        $0.auxiliary[.portraitMatte] != nil && $0.auxiliary[.disparity] == nil && $0.auxiliary[.depth] == nil
    }

    /// f/1.4, f/2.8, and f/1.4 focused on the top of the frame (the background in these photos).
    static let settings = ["aperture: 1.4", "aperture: 2.8", "aperture: 1.4, focus: \"0.5,0.08\""]

    /// The effect with `parameters`, after a portrait-matte stage (with `matteParameters`) when `matteFirst`.
    static func render(_ photo: Photo, _ parameters: String, matteFirst: Bool = false, matteParameters: String = "") throws -> Photo {
        var rendered = photo.deepCopy()
        let matte = matteFirst ? "  - plugin: org.mattebox.portrait-matte\n    params: { \(matteParameters) }\n" : ""
        _ = try BuiltPlugins.runner(
            """
            stages:
            \(matte)  - plugin: org.mattebox.portrait-effect
                params: { \(parameters) }
            """, roles: [.portraitMatte, .disparity, .depth]
        ).run(&rendered)
        return rendered
    }

    /// Measured on the photos as they are shown (upright), as the tool reads them.
    static func expectNoCreatedEdges(_ original: Photo, _ render: Photo, _ what: String) throws {
        let edges = try CreatedEdges.measure(original: try original.displayedUpright().primary, render: try render.displayedUpright().primary)
        #expect(edges.perMille <= 0.5, "\(what): created edges \(edges.perMille) per mille")
        #expect(edges.longest <= 30, "\(what): a created line \(edges.longest) px long")
    }

    /// The measure passes a plain blur of a real photo and fails the same blur with a sharp
    /// patch pasted in (an edge the photo had not there) and a band of another colour.
    @Test func theMeasurePassesABlurAndFailsAnEdgeTheRenderMade() throws {
        let photo = try ImageDecoder.decodePhoto(at: URL(fileURLWithPath: "/usr/share/doc/opencv-doc/examples/data/messi5.jpg")).primary
        let blurred = photo.copy()
        let width = photo.width, height = photo.height, channels = photo.channels
        // A 31-px box blur, as wide as a portrait's background blur here, written out so the test
        // does not lean on the code it checks. (A blur of a few pixels spreads a hard edge's slope
        // sideways over pixels that had none, which the measure counts: it judges renders whose
        // blur is either none, at the focal plane, or wide.)
        let source = photo.data.assumingMemoryBound(to: UInt8.self), target = blurred.data.assumingMemoryBound(to: UInt8.self)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<channels {
                    var sum = 0, count = 0
                    for yy in max(0, y - 15)...min(height - 1, y + 15) {
                        for xx in max(0, x - 15)...min(width - 1, x + 15) {
                            sum += Int(source[yy * photo.bytesPerRow + xx * channels + c])
                            count += 1
                        }
                    }
                    target[y * blurred.bytesPerRow + x * channels + c] = UInt8(sum / count)
                }
            }
        }
        let clean = try CreatedEdges.measure(original: photo, render: blurred)
        #expect(clean.perMille < 0.05 && clean.longest < 5, "a blur creates no edge: \(clean)")
        // A flat band of the crowd's colour across the grass, 40 px tall: its top and bottom are new edges.
        let banded = blurred.copy()
        let band = banded.data.assumingMemoryBound(to: UInt8.self)
        for y in 280..<320 {
            for x in 60..<300 {
                for c in 0..<channels { band[y * banded.bytesPerRow + x * channels + c] = 30 }
            }
        }
        let made = try CreatedEdges.measure(original: photo, render: banded, withMap: true)
        #expect(made.perMille > 2 && made.longest > 300, "a pasted band's outline is created: \(made)")
        #expect(made.map?.width == 1008)
    }

    @Test(.enabled(if: shared != nil, "\(noShared)"), arguments: photosWithDepth)
    func aPhonePhotoWithItsOwnDepthRendersWithoutCreatedEdges(_ name: String) throws {
        let photo = try ImageDecoder.decodePhoto(at: try #require(Self.shared).appendingPathComponent(name))
        for parameters in Self.settings {
            let rendered = try Self.render(photo, parameters)
            #expect(rendered.metadata.notes["portraitEffect"]?.contains("measured") == true, "\(name): \(rendered.metadata.notes)")
            try Self.expectNoCreatedEdges(photo, rendered, "\(name) at \(parameters)")
        }
    }

    /// messi5 (its matte made by the portrait-matte stage) and the shared phone portraits that carry
    /// a portrait matte and no depth. (The repository's sample selfie is 96 px wide: the measure,
    /// taken 1008 px wide, would judge a tenfold enlargement.)
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/doc/opencv-doc/examples/data/messi5.jpg"), "opencv-doc's messi5 is missing"))
    func portraitsWithAMatteAloneRenderWithoutCreatedEdges() throws {
        let messi = try ImageDecoder.decodePhoto(at: URL(fileURLWithPath: "/usr/share/doc/opencv-doc/examples/data/messi5.jpg"))
        for parameters in Self.settings {
            try Self.expectNoCreatedEdges(messi, try Self.render(messi, parameters, matteFirst: true), "messi5 at \(parameters)")
        }
        for name in Self.portraitsWithAMatteAlone {
            let photo = try ImageDecoder.decodePhoto(at: try #require(Self.shared).appendingPathComponent(name))
            for parameters in Self.settings {
                try Self.expectNoCreatedEdges(photo, try Self.render(photo, parameters), "\(name) at \(parameters)")
            }
        }
    }

    /// Refocus refocuses, and the ground stays with the feet: messi5 with its MODNet matte and no
    /// depth. Sharpness is the mean gradient of a region against the photo's.
    @Test(.enabled(if: BuiltVisionPlugins.modnetInstalled && FileManager.default.fileExists(atPath: "/usr/share/doc/opencv-doc/examples/data/messi5.jpg"),
                   "MODNet (mattebox models install modnet) or opencv-doc's messi5 is missing"))
    func messiStaysWithHisGroundAndBlursWhenTheFocusMovesBehindHim() throws {
        let photo = try ImageDecoder.decodePhoto(at: URL(fileURLWithPath: "/usr/share/doc/opencv-doc/examples/data/messi5.jpg"))
        let focused = try Self.render(photo, "aperture: 1.4, keep-auxiliary: true", matteFirst: true)
        let behind = try Self.render(photo, "aperture: 1.4, focus: \"0.5,0.1\"", matteFirst: true)
        let matte = try #require(focused.auxiliary[.portraitMatte])
        let width = photo.primary.width, height = photo.primary.height
        func isPlayer(_ x: Int, _ y: Int) -> Bool {
            matte.sample(x: x * matte.width / width, y: y * matte.height / height) > 200
        }
        func nearPlayer(_ x: Int, _ y: Int, _ reach: Int) -> Bool {
            for yy in stride(from: max(0, y - reach), through: min(height - 1, y + reach), by: 2) {
                for xx in stride(from: max(0, x - reach), through: min(width - 1, x + reach), by: 2) where isPlayer(xx, yy) { return true }
            }
            return false
        }
        // The player's lowest 12 rows are his standing boot; the grass is what lies within 40 px of it.
        var bottom = 0
        for y in 0..<height where (0..<width).contains(where: { isPlayer($0, y) }) { bottom = y }
        var boots: [(Int, Int)] = []
        for y in (bottom - 11)...bottom {
            for x in 0..<width where isPlayer(x, y) { boots.append((x, y)) }
        }
        var player: [(Int, Int)] = [], grass: [(Int, Int)] = [], crowd: [(Int, Int)] = []
        for y in stride(from: 2, to: height - 2, by: 2) {
            for x in stride(from: 2, to: width - 2, by: 2) {
                if isPlayer(x, y) {
                    if !nearPlayer(x, y, 4) || [(-4, 0), (4, 0), (0, -4), (0, 4)].allSatisfy({ isPlayer(x + $0.0, y + $0.1) }) { player.append((x, y)) }
                } else if nearPlayer(x, y, 3) {
                    continue
                } else if y < height * 6 / 10, !nearPlayer(x, y, 8) {
                    crowd.append((x, y))
                } else if y > bottom - 40, boots.contains(where: { abs($0.0 - x) <= 40 && abs($0.1 - y) <= 40 }) {
                    grass.append((x, y))
                }
            }
        }
        func sharpness(_ image: PixelImage, _ points: [(Int, Int)]) -> Double {
            points.reduce(0.0) { total, point in
                let (x, y) = point
                var g = 0.0
                for c in 0..<3 {
                    g += abs(image.sample(x: x + 1, y: y, channel: c) - image.sample(x: x - 1, y: y, channel: c))
                    g += abs(image.sample(x: x, y: y + 1, channel: c) - image.sample(x: x, y: y - 1, channel: c))
                }
                return total + g
            }
        }
        func kept(_ image: PixelImage, _ points: [(Int, Int)]) -> Double { sharpness(image, points) / sharpness(photo.primary, points) }
        #expect(player.count > 500 && grass.count > 100 && crowd.count > 2000, "regions: \(player.count), \(grass.count), \(crowd.count)")
        #expect(kept(behind.primary, player) <= 0.5, "focused behind him, the player blurs: keeps \(kept(behind.primary, player))")
        #expect(kept(focused.primary, grass) >= 0.6, "focused on him, the grass at his boots stays sharp: keeps \(kept(focused.primary, grass))")
        #expect(kept(focused.primary, crowd) <= 0.3, "focused on him, the crowd blurs: keeps \(kept(focused.primary, crowd))")
    }

    /// A scene with known depth, its depth then degraded as a phone's is: reduced to 576x768,
    /// its near edges moved 3 of those pixels outwards, blurred a little and quantised to 8 bits.
    /// Around the depth edges the render from it stays within 3 levels (mean) of the render from
    /// the exact depth, and neither creates an edge.
    @Test func aRenderFromPhoneLikeDepthMatchesTheRenderFromExactDepth() throws {
        let width = 1152, height = 1536
        let photo = PixelImage(width: width, height: height, channels: 3, format: .uint8)
        let exact = PixelImage(width: width, height: height, channels: 1, format: .float32)
        let pixels = photo.data.assumingMemoryBound(to: UInt8.self), truth = exact.data.assumingMemoryBound(to: Float.self)
        // A far textured wall (0.1), a middle box on the left (0.5), a near subject (1): an ellipse
        // with a neck and shoulders, each textured in its own colours.
        func disparity(_ x: Int, _ y: Int) -> Float {
            let dx = Double(x - 600) / 230, dy = Double(y - 620) / 300
            if dx * dx + dy * dy < 1 || (y > 850 && abs(x - 600) < 180 + (y - 850) / 2) { return 1 }
            if x < 360 && y > 980 { return 0.5 }
            return 0.1
        }
        for y in 0..<height {
            for x in 0..<width {
                let d = disparity(x, y)
                truth[y * width + x] = d
                let t = 0.5 + 0.5 * sin(Double(x) * 0.37) * cos(Double(y) * 0.23)
                let colour: [Double] = d == 1 ? [200 + 40 * t, 140 + 30 * t, 110] : d == 0.5 ? [60, 90 + 50 * t, 160] : [90 + 60 * t, 110 + 40 * t, 70 + 20 * t]
                for c in 0..<3 { pixels[(y * width + x) * 3 + c] = UInt8(min(255, max(0, colour[c].rounded()))) }
            }
        }
        // The phone's version: 576x768 area averages, the near side grown 3 pixels, a 3x3 blur, 8 bits.
        let coarseWidth = 576, coarseHeight = 768
        var coarse = [Float](repeating: 0, count: coarseWidth * coarseHeight)
        for y in 0..<coarseHeight {
            for x in 0..<coarseWidth {
                var sum: Float = 0
                for yy in 0..<2 { for xx in 0..<2 { sum += truth[(2 * y + yy) * width + 2 * x + xx] } }
                coarse[y * coarseWidth + x] = sum / 4
            }
        }
        func filtered(_ values: [Float], reach: Int, _ combine: ([Float]) -> Float) -> [Float] {
            var out = values
            for y in 0..<coarseHeight {
                for x in 0..<coarseWidth {
                    var around: [Float] = []
                    for yy in max(0, y - reach)...min(coarseHeight - 1, y + reach) {
                        for xx in max(0, x - reach)...min(coarseWidth - 1, x + reach) { around.append(values[yy * coarseWidth + xx]) }
                    }
                    out[y * coarseWidth + x] = combine(around)
                }
            }
            return out
        }
        let grown = filtered(coarse, reach: 3) { $0.max()! }
        let softened = filtered(grown, reach: 1) { $0.reduce(0, +) / Float($0.count) }
        let phone = PixelImage(width: coarseWidth, height: coarseHeight, channels: 1, format: .uint8)
        let phoneBytes = phone.data.assumingMemoryBound(to: UInt8.self)
        for i in softened.indices { phoneBytes[i] = UInt8((softened[i] * 255).rounded()) }

        func render(_ depth: PixelImage) throws -> Photo {
            var scene = Photo(primary: photo.copy())
            scene.setAuxiliary(depth.copy(), for: .disparity)
            _ = try BuiltPlugins.runner(
                """
                stages:
                  - plugin: org.mattebox.portrait-effect
                    params: { aperture: 2, focus: "0.5,0.4" }
                """, roles: [.disparity]
            ).run(&scene)
            return scene
        }
        let fromTruth = try render(exact), fromPhone = try render(phone)
        var difference = 0.0, counted = 0
        for y in stride(from: 0, to: height, by: 2) {
            for x in stride(from: 0, to: width, by: 2) {
                let d = disparity(x, y)
                let nearEdge = [(-24, 0), (24, 0), (0, -24), (0, 24), (-17, -17), (17, 17), (-17, 17), (17, -17)].contains { offset in
                    let xx = min(width - 1, max(0, x + offset.0)), yy = min(height - 1, max(0, y + offset.1))
                    return disparity(xx, yy) != d
                }
                guard nearEdge else { continue }
                counted += 1
                for c in 0..<3 { difference += abs(fromTruth.primary.sample(x: x, y: y, channel: c) - fromPhone.primary.sample(x: x, y: y, channel: c)) }
            }
        }
        let mean = difference / Double(3 * counted)
        #expect(counted > 5000)
        #expect(mean <= 3, "around the depth edges the render from the phone-like depth differs by \(mean) levels")
        for render in [fromTruth, fromPhone] {
            let edges = try CreatedEdges.measure(original: photo, render: render.primary)
            #expect(edges.perMille <= 0.5 && edges.longest <= 30, "created edges: \(edges)")
        }
    }

    /// Where a blurred surface's layers meet inside it (the helmet's slanted crest, the doll's
    /// beads, the pug's fur over the floor), a render must not let the fill from around the group
    /// show between them: on these Lens Blur photos (no bright highlight to bloom) no pixel of the
    /// render may be brighter, by more than 12 levels, than anything the unblurred photo holds
    /// within 25 px. Before this was mended the helmet at f/1.4 had 350 such pixels (a light seam
    /// across its crest), the doll 577 and the pug 5047.
    @Test(.enabled(if: shared != nil, "\(noShared)"), arguments: ["spite__depth-player__greek-helmet.jpg", "spite__depth-player__jules.jpg"])
    func noLightSeamWhereASurfacesLayersMeet(_ name: String) throws {
        let photo = try ImageDecoder.decodePhoto(at: try #require(Self.shared).appendingPathComponent("depth-samples/\(name)"))
        let unblurred = try #require(photo.auxiliary["com.google.gimage"], "\(name) has no GImage")
        let reach = Self.brightestWithin(25, of: Self.luminance(unblurred), width: unblurred.width, height: unblurred.height)
        for parameters in ["aperture: 1.4", "aperture: 2.8"] {
            let rendered = try Self.render(photo, parameters).primary
            try #require(rendered.width == unblurred.width && rendered.height == unblurred.height)
            let lit = zip(Self.luminance(rendered), reach).filter { $0.0 > $0.1 + 12 }.count
            #expect(lit == 0, "\(name) at \(parameters): \(lit) pixels brighter than the photo holds within 25 px")
        }
    }

    /// A portrait-matting network takes a person to go on out of the frame's foot: on the figurine
    /// standing on a table (Lens Blur, with the phone's depth) MODNet's matte covers the table from
    /// the boots down to the frame's edge, and a cut-out kept it as a white slab. Left out now: the
    /// table under the boots is transparent, the boots (at the table's depth where they touch it,
    /// told apart by colour) stay whole.
    @Test(.enabled(if: shared != nil && BuiltVisionPlugins.modnetInstalled, "\(noShared), or MODNet is not installed"))
    func aCutOutLeavesOutTheTableTheFigureStandsOn() throws {
        let photo = try ImageDecoder.decodePhoto(at: try #require(Self.shared).appendingPathComponent("depth-samples/spite__depth-player__jules.jpg"))
        let cut = try Self.render(photo, "background: transparent", matteFirst: true)
        let alpha = try #require(cut.auxiliary[.alpha], "the cut-out has an alpha image")
        try #require(alpha.width == 1536 && alpha.height == 2048)
        func share(_ xs: Range<Int>, _ ys: Range<Int>, _ test: (Double) -> Bool) -> Double {
            let points = ys.flatMap { y in xs.map { (x: $0, y: y) } }
            return Double(points.filter { test(alpha.sample(x: $0.x, y: $0.y)) }.count) / Double(points.count)
        }
        let table = share(620..<980, 1820..<2040) { $0 < 50 }, boots = share(620..<980, 1560..<1720) { $0 > 200 }
        #expect(table > 0.95, "\(table) of the table under the boots is cut away")
        #expect(boots > 0.95, "\(boots) of the boots is kept")
        // Nor does the matte's soft outline of the table stay behind, as pale trails across the table's width.
        let trails = share(0..<1536, 1800..<2040) { $0 > 12 }
        #expect(trails < 0.002, "\(trails) of the rows below the boots keep a trail of the table's outline")
        #expect(cut.metadata.notes["portraitEffect"]?.contains("surface under the subject left out") == true)
    }

    /// Mean of the colour channels of an 8-bit image.
    static func luminance(_ image: PixelImage) -> [Float] {
        let samples = image.data.assumingMemoryBound(to: UInt8.self), channels = image.channels
        return (0..<(image.width * image.height)).map { i in
            (0..<min(3, channels)).reduce(Float(0)) { $0 + Float(samples[i * channels + $1]) } / Float(min(3, channels))
        }
    }

    /// Each value's largest neighbour within a square of `radius` (rows, then columns; a running
    /// maximum kept in a queue, so each pass is linear).
    static func brightestWithin(_ radius: Int, of values: [Float], width: Int, height: Int) -> [Float] {
        func pass(_ input: [Float], count: Int, lines: Int, index: (Int, Int) -> Int) -> [Float] {
            var output = input
            var queue = [Int](repeating: 0, count: count)
            for line in 0..<lines {
                var head = 0, tail = 0
                for i in 0..<(count + radius) {
                    if i < count {
                        let value = input[index(line, i)]
                        while tail > head, input[index(line, queue[tail - 1])] <= value { tail -= 1 }
                        queue[tail] = i
                        tail += 1
                    }
                    let centre = i - radius
                    guard centre >= 0 else { continue }
                    while queue[head] < centre - radius { head += 1 }
                    output[index(line, centre)] = input[index(line, queue[head])]
                }
            }
            return output
        }
        let rows = pass(values, count: width, lines: height) { $0 * width + $1 }
        return pass(rows, count: height, lines: width) { $1 * width + $0 }
    }
}
