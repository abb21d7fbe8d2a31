import CImageFile
import Foundation
import MatteboxPluginSDK
import MatteboxVisionPluginKit

/// What the mattes and the depth are for: a portrait effect rendered from
/// them, as Photos' Depth Control does after capture — the background blurred
/// like a wide lens (aperture and focus set now, not when shooting), replaced
/// by a colour or an image, or cut away to transparency. The rendering is in
/// the vision library (`portrait_effect.cpp`); this stage chooses the depth
/// and the focus and says in the photo's notes which it used.
final class PortraitEffect: PhotoProcessor {
    static let alphaRole = "org.mpeg.alpha"
    /// Lens Blur's GImage: the photo before the phone's own blur.
    static let unblurredRole = "com.google.gimage"
    /// The HDR gain maps (an iPhone's, or one kept in ISO 21496-1's form): rendered like the
    /// primary, so an HDR screen shows the same blur.
    static let gainMapRoles = StandardRoles.gainMaps
    /// What describes the photo as it was shot, and not the rendered pixels.
    static let sceneRoles = StandardRoles.depth + StandardRoles.mattes + [unblurredRole]

    static let description = ProcessorDescription(
        id: "org.mattebox.portrait-effect", name: "Portrait effect",
        summary: "Depth of field set after capture (aperture, focus), background replacement and cut-outs, from the portrait matte and depth",
        vendor: "Mattebox", license: "MIT", version: (1, 0, 0), threadSafety: .concurrent,
        inputs: [
            Port(role: MBX_ROLE_PRIMARY, description: "the photo; rendered in place"),
            Port(role: MBX_ROLE_PORTRAIT_MATTE, optional: true, description: "the subject, kept sharp (a portrait-matte stage before it makes one; render --matte auto does)"),
            Port(role: MBX_ROLE_DISPARITY, optional: true, description: "measured disparity (iPhone, stereo): the blur follows it"),
            Port(role: MBX_ROLE_DEPTH, optional: true, description: "measured depth in metres, used as 1/depth when there is no disparity"),
            Port(
                role: unblurredRole, optional: true,
                description: "the photo before the phone's own blur (Lens Blur's GImage): rendered from instead of the primary, so the blur is not applied twice"),
        ],
        outputs: [
            Port(role: alphaRole, optional: true, description: "background transparent: the subject's alpha (PNG RGBA, HEIC alpha item)")
        ],
        parameters: [
            Parameter(
                "aperture", .double(default: 4.5, range: apertures),
                description: "f-number as in Photos' Depth Control, 1.4-16: the blur follows the lens opening, (1/N - 1/16) / (1/1.4 - 1/16) "
                    + "of the widest blur, so f/16 renders none and a smaller f-number never blurs less"),
            Parameter(
                "focus", .string(default: "auto"),
                description: "auto: where the phone focused its own render when the photo records it (Lens Blur's GFocus), else subject; "
                    + "subject (the matte's subject; with depth alone the face, else the sharpest near region); or x,y in 0-1 of the upright photo "
                    + "(the median disparity within 1% of the long side around it)"),
            Parameter(
                "strength", .choice(default: "auto", values: ["auto", "aperture"]),
                description: "auto: the phone's own blur when the photo records it (Lens Blur's BlurAtInfinity at its focal distance), else the aperture; "
                    + "aperture: the aperture always (setting the aperture in render or the app does this)"),
            Parameter(
                "background", .choice(default: "blur", values: ["blur", "colour", "image", "transparent"]),
                description: "blur; colour (background-colour); image (background-image); transparent (a cut-out: the org.mpeg.alpha image, "
                    + "RGBA in PNG, an alpha item in HEIC)"),
            Parameter(
                "background-colour", .string(default: "#ffffff"),
                description: "with background colour: the colour, #RRGGBB"),
            Parameter(
                "background-image", .string(default: ""),
                description: "with background image: the image file (JPEG, PNG, TIFF, WebP, HEIC), scaled to cover the upright photo, centred, turned upright by its EXIF, in sRGB by its own colour profile"),
            Parameter(
                "highlights", .double(default: 0.5, range: 0...1),
                description: "how much bright points bloom into bokeh discs: blurred layers average colour^g, g = 1 + 3 x highlights, "
                    + "and are brought back with 1/g (BokehMe); 0 turns it off"),
            Parameter(
                "max-blur", .double(default: 0.03, range: 0.001...0.2),
                description: "blur radius at f/1.4 between the nearest and farthest depth, as a share of the long side"),
            Parameter(
                "keep-auxiliary", .bool(default: false),
                description: "keep depth and mattes with the rendered photo (by default they are removed, as they describe the unrendered one)"),
        ] + FaceFinding.parameters)

    private let aperture: Double
    private let focusPoint: (x: Double, y: Double)?
    private let background: Background
    private let highlights: Double
    private let maxBlur: Double
    private let keepAuxiliary: Bool
    private let faces: FaceFinding

    enum Background {
        case blur, transparent
        case colour(Float, Float, Float)
        case image(String)
    }

    /// The f-numbers the aperture takes: f/1.4 blurs most, f/16 not at all.
    static let apertures = 1.4...16.0

    /// What the user set, or left to the photo (`auto`).
    private let focusSetting: String
    private let phoneStrength: Bool

    init(parameters: PluginParameters) throws {
        aperture = try parameters.double("aperture")
        phoneStrength = try parameters.string("strength") == "auto"
        highlights = try parameters.double("highlights")
        maxBlur = try parameters.double("max-blur")
        keepAuxiliary = try parameters.bool("keep-auxiliary")
        faces = try FaceFinding(parameters)
        let focus = try parameters.string("focus")
        focusSetting = focus
        if focus == "subject" || focus == "auto" {
            focusPoint = nil
        } else {
            let parts = focus.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 2, parts.allSatisfy({ (0...1).contains($0) }) else {
                throw PluginError("focus is auto, subject or x,y with both in 0-1 (e.g. 0.5,0.4), not \(focus)", status: MBX_ERR_INVALID_ARGUMENT)
            }
            focusPoint = (parts[0], parts[1])
        }
        background = try Self.background(parameters)
    }

    /// The HDR gain map rendered as the primary was (the same focus, depth and blur, at the map's own
    /// size, without highlight bloom: its values are gains, not light), so an HDR screen does not bring
    /// the background's detail back sharp; left out for a new background or a cut-out, whose light it
    /// does not describe. A map per colour channel is rendered in colour. What happened, for the note
    /// (nil without a gain map).
    private func renderGainMap(
        of photo: PluginPhoto, primary: PluginImage, options: mbx_cv_portrait_effect_options,
        focusedAt primaryResult: mbx_cv_portrait_effect_result, matte: inout mbx_cv_image?, depth: inout mbx_cv_image?
    ) throws -> String? {
        var notes: [String] = []
        for role in StandardRoles.opaqueGainMaps where photo.image(role) != nil {
            try photo.removeImage(role)
            notes.append("the HDR gain map \(role) left out: what its values mean is its maker's own, so it cannot be rendered as the photo was")
        }
        for role in Self.gainMapRoles {
            guard let gain = photo.image(role) else { continue }
            guard case .blur = background, gain.channels == 1 || gain.channels == 3, gain.format == mbx_sample_format(MBX_SAMPLE_U8) else {
                try photo.removeImage(role)
                notes.append("the HDR gain map left out: it describes the photo's own light, not \(backgroundName)")
                continue
            }
            try render(gain, role: role, of: photo, options: options, focusedAt: primaryResult, matte: &matte, depth: &depth)
            notes.append("the HDR gain map rendered alike (\(gain.width)x\(gain.height)\(gain.channels == 3 ? ", one per colour channel" : ""))")
        }
        return notes.isEmpty ? nil : notes.joined(separator: "; ")
    }

    /// One gain map (8-bit, grey or colour) rendered in place of the old at the primary's focal plane.
    private func render(
        _ gain: PluginImage, role: String, of photo: PluginPhoto, options: mbx_cv_portrait_effect_options,
        focusedAt primaryResult: mbx_cv_portrait_effect_result, matte: inout mbx_cv_image?, depth: inout mbx_cv_image?
    ) throws {
        let (width, height, channels) = (gain.width, gain.height, gain.channels)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            let row = gain.row(y, as: UInt8.self)
            for x in 0..<width {
                let at = (y * width + x) * 3
                for c in 0..<3 { pixels[at + c] = row[x * channels + (channels == 3 ? c : 0)] }
            }
        }
        // The primary's focal plane and sharp band, not one chosen again from the gain map's own detail.
        var settings = options
        settings.highlights = 0
        settings.background_image = nil
        settings.keep_depth = 0
        settings.depth_from = primaryResult.depth
        settings.focus = MBX_CV_FOCUS_DISPARITY
        settings.focus_disparity = primaryResult.focus_disparity
        settings.focus_band = primaryResult.sharp_band
        var result = mbx_cv_portrait_effect_result()
        var error = mbx_cv_error()
        var noAlpha = mbx_cv_plane()
        let status = pixels.withUnsafeMutableBytes { buffer -> Int32 in
            var view = mbx_cv_image(
                data: buffer.baseAddress, width: Int32(width), height: Int32(height), channels: 3, format: gain.visionImage.format,
                stride: width * 3)
            var output = view // the same memory: the effect renders in place
            return withOptionalPointer(&matte) { mattePointer in
                withOptionalPointer(&depth) { depthPointer in
                    mbx_cv_portrait_effect(&view, mattePointer, depthPointer, &settings, &output, &noAlpha, &result, &error)
                }
            }
        }
        guard status == 0 else { throw PluginError("portrait effect on the HDR gain map: \(error.text)") }
        let rendered = try photo.createImage(role, width: width, height: height, channels: channels, format: gain.format)
        for y in 0..<height {
            let row = rendered.row(y, as: UInt8.self)
            for x in 0..<width {
                for c in 0..<channels { row[x * channels + c] = pixels[(y * width + x) * 3 + c] }
            }
        }
    }

    /// How much of the widest aperture's blur an f-number gives: 1 at the widest, 0 at the smallest,
    /// in proportion to the lens opening (1/N) in between, so a smaller f-number always blurs more.
    /// The renderer takes this share; the f-numbers are the descriptor's alone.
    static func strength(of aperture: Double) -> Double {
        let (widest, smallest) = (apertures.lowerBound, apertures.upperBound)
        let n = min(max(aperture, widest), smallest)
        return (1 / n - 1 / smallest) / (1 / widest - 1 / smallest)
    }

    /// The f-number whose blur matches a phone's: `blur` is its radius (a share of the width) between
    /// the depth's nearest and farthest; the effect's radius for that span is max-blur x the long side,
    /// scaled by (1.4/N - 1.4/16) / (1 - 1.4/16), so N follows, within the apertures.
    static func aperture(givingBlur blur: Double, width: Int, height: Int, maxBlur: Double) -> Double {
        let (widest, smallest) = (apertures.lowerBound, apertures.upperBound)
        let share = blur * Double(width) / (maxBlur * Double(max(width, height)))
        let inverse = share * (widest / widest - widest / smallest) + widest / smallest
        return min(smallest, max(widest, widest / max(inverse, widest / smallest)))
    }

    /// The share of an 8- or 16-bit depth map's value range between its 1st and 99th percentiles
    /// (the span the effect's depth scale covers); 1 for float maps.
    static func percentileSpan(of map: PluginImage) -> Double {
        let sixteen = map.format == mbx_sample_format(MBX_SAMPLE_U16)
        guard map.format == mbx_sample_format(MBX_SAMPLE_U8) || sixteen, map.width > 0, map.height > 0 else { return 1 }
        var histogram = [Int](repeating: 0, count: 256)
        for y in 0..<map.height {
            if sixteen {
                for value in map.row(y, as: UInt16.self).prefix(map.width * map.channels) { histogram[Int(value >> 8)] += 1 }
            } else {
                for value in map.row(y, as: UInt8.self).prefix(map.width * map.channels) { histogram[Int(value)] += 1 }
            }
        }
        let total = histogram.reduce(0, +)
        func percentile(_ share: Double) -> Int {
            var seen = 0
            for (value, count) in histogram.enumerated() {
                seen += count
                if Double(seen) >= share * Double(total) { return value }
            }
            return 255
        }
        return max(1, Double(percentile(0.99) - percentile(0.01))) / 255
    }

    /// The background mode (a choice the host has checked) with its own parameter.
    static func background(_ parameters: PluginParameters) throws -> Background {
        switch try parameters.string("background") {
        case "transparent": return .transparent
        case "colour":
            let text = try parameters.string("background-colour")
            let hex = text.drop { $0 == "#" }
            guard hex.count == 6, let value = UInt32(hex, radix: 16) else {
                throw PluginError("background-colour is #RRGGBB (six hex digits, e.g. #1e3a5f), not \(text)", status: MBX_ERR_INVALID_ARGUMENT)
            }
            return .colour(Float((value >> 16) & 0xFF) / 255, Float((value >> 8) & 0xFF) / 255, Float(value & 0xFF) / 255)
        case "image":
            let path = try parameters.string("background-image")
            guard !path.isEmpty else {
                throw PluginError("background image needs background-image, the image file to put behind the subject", status: MBX_ERR_INVALID_ARGUMENT)
            }
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw PluginError("background-image \(path): no readable file there", status: MBX_ERR_INVALID_ARGUMENT)
            }
            return .image(path)
        default: return .blur
        }
    }

    func process(_ photo: PluginPhoto) throws {
        guard let primary = photo.image(MBX_ROLE_PRIMARY) else { throw PluginError("the photo has no primary image") }
        let disparity = photo.image(MBX_ROLE_DISPARITY)
        let depth = disparity == nil ? photo.image(MBX_ROLE_DEPTH) : nil
        let measured = disparity ?? depth
        // The phone's own focus (Lens Blur's GFocus) is rendered as the phone rendered it, from its depth
        // alone: a matte would hold a whole person sharp where the phone blurred part of them.
        let phone = photo.string("shared." + PhoneFocus.sharedName).flatMap(PhoneFocus.init(encoded:))
        let phoneFocus = focusSetting == "auto" && phone != nil && measured != nil
        var matte = photo.image(MBX_ROLE_PORTRAIT_MATTE)
        if phoneFocus, case .blur = background { matte = nil }
        let stored = { (role: String) in photo.string(MBX_META_SOURCE_PREFIX + role).map { ": \($0)" } ?? "" }
        let depthSource: String
        switch (disparity != nil, depth != nil, matte != nil) {
        case (true, _, _): depthSource = "the photo's own disparity (measured\(stored(MBX_ROLE_DISPARITY)))"
        case (_, true, _): depthSource = "the photo's own depth (measured, used as 1/depth\(stored(MBX_ROLE_DEPTH)))"
        case (_, _, true):
            depthSource = "a layered estimate from the portrait matte (the subject in front, the rest far behind it; not written as depth)"
        default:
            // Nothing to render from: an error, never a copy passed off as a render.
            let why = photo.string(MBX_META_NOTE_PORTRAIT_MATTE) ?? "no face was found to make a matte around"
            throw PluginError(
                "nothing to render from (\(backgroundName)): the photo has no depth and no portrait matte (\(why)). A photo with "
                    + "depth (an iPhone Portrait photo, a Lens Blur or Dynamic Depth JPEG, a stereo pair through the depth stage), "
                    + "with a person whose face can be found, or with one object standing out gives one",
                status: MBX_ERR_NOT_FOUND)
        }

        // The phone's own choices (Lens Blur's GFocus), for what the user left to the photo.
        var aperture = self.aperture, focusPoint = self.focusPoint
        var phoneChose: [String] = []
        if phoneFocus, let phone {
            focusPoint = (phone.x, phone.y)
            phoneChose.append("focus")
        }
        if phoneStrength, let blur = phone?.blurOverDepthRange, let measured {
            // The effect spans its depth scale over the map's 1st to 99th percentile, not the file's whole range.
            let span = Self.percentileSpan(of: measured)
            aperture = Self.aperture(givingBlur: blur * span, width: primary.width, height: primary.height, maxBlur: maxBlur)
            phoneChose.append("strength")
        }
        var options = mbx_cv_portrait_effect_options()
        options.strength = Self.strength(of: aperture)
        options.max_blur = maxBlur
        options.highlights = highlights
        options.orientation = Int32(photo.int(MBX_META_ORIENTATION) ?? 1)
        options.depth_is_distance = depth != nil ? 1 : 0
        // A person matte made by the portrait-matte stage runs on out of the frame's foot, over what the subject stands on.
        options.leave_ground_out = photo.string("shared." + PortraitMatteSubject.sharedName) == PortraitMatteSubject.madePerson ? 1 : 0
        if let focusPoint {
            options.focus = MBX_CV_FOCUS_POINT
            (options.focus_x, options.focus_y) = focusPoint
        } else {
            options.focus = MBX_CV_FOCUS_SUBJECT
            if matte == nil, measured != nil, let face = try findFace(primary, orientation: options.orientation, photo: photo) {
                options.face = face
            }
        }
        var backgroundImage = mbx_cv_image()
        defer { mbx_image_file_free(&backgroundImage) }
        try setBackground(&options, image: &backgroundImage)

        var alphaPlane = mbx_cv_plane()
        if case .transparent = background {
            let alpha = try photo.createImage(
                Self.alphaRole, width: primary.width, height: primary.height, channels: 1, format: mbx_sample_format(MBX_SAMPLE_U8))
            alphaPlane = alpha.visionPlane
        }
        let unblurred = photo.image(Self.unblurredRole).flatMap { image in
            image.width == primary.width && image.height == primary.height && image.channels == primary.channels
                && image.format == primary.format ? image : nil
        }
        var view = (unblurred ?? primary).visionImage
        var output = primary.visionImage
        var matteView = matte?.visionImage
        var depthView = measured?.visionImage
        var result = mbx_cv_portrait_effect_result()
        defer { mbx_cv_scene_depth_free(result.depth) }
        // A gain map is blurred over the same edge-true depth, made once on the primary's sharper edges.
        if case .blur = background, Self.gainMapRoles.contains(where: { photo.image($0) != nil }) { options.keep_depth = 1 }
        var error = mbx_cv_error()
        let behind = backgroundImage
        let status = withUnsafePointer(to: behind) { image -> Int32 in
            options.background_image = behind.data == nil ? nil : image
            return withOptionalPointer(&matteView) { mattePointer in
                withOptionalPointer(&depthView) { depthPointer in
                    mbx_cv_portrait_effect(&view, mattePointer, depthPointer, &options, &output, &alphaPlane, &result, &error)
                }
            }
        }
        guard status == 0 else { throw PluginError("portrait effect: \(error.text)") }
        let gainNote = try renderGainMap(of: photo, primary: primary, options: options, focusedAt: result, matte: &matteView, depth: &depthView)

        var note = renderNote(
            options: options, result: result, aperture: aperture, depthSource: depthSource, hasMatte: matte != nil)
        if unblurred != nil { note += "; rendered from the photo before the phone's own blur (Lens Blur's GImage)" }
        if !phoneChose.isEmpty { note += "; the phone's own \(phoneChose.joined(separator: " and ")) (Lens Blur's GFocus)" }
        if let gainNote { note += "; \(gainNote)" }
        let ground = withUnsafeBytes(of: result.depth_note) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        if !ground.isEmpty { note += "; \(ground)" }
        if matte != nil, measured == nil, photo.string("shared." + PortraitMatteSubject.sharedName) != PortraitMatteSubject.salientObject {
            note += "; what the subject holds is not placed with it (a person matte holds the person alone)"
        }
        try photo.setString("note.portraitEffect", note)
        // What it rendered with, for a control that starts where the photo (or the user) put it.
        try photo.setString("shared.\(PortraitRendered.apertureName)", String(format: "%.1f", aperture))
        try photo.setString("shared.\(PortraitRendered.focusName)", focusPoint.map { String(format: "%.3f,%.3f", $0.0, $0.1) } ?? "subject")
        photo.log(String(format: "portrait effect in %.2f s", result.seconds))
        if !keepAuxiliary { try removeSceneImages(of: photo) }
    }

    /// The background the effect renders, set on its options (an image read into `image`).
    private func setBackground(_ options: inout mbx_cv_portrait_effect_options, image: inout mbx_cv_image) throws {
        switch background {
        case .blur: options.background = MBX_CV_BACKGROUND_BLUR
        case .transparent: options.background = MBX_CV_BACKGROUND_TRANSPARENT
        case .colour(let r, let g, let b):
            options.background = MBX_CV_BACKGROUND_COLOUR
            options.colour = (r, g, b)
        case .image(let path):
            options.background = MBX_CV_BACKGROUND_IMAGE
            var error = mbx_cv_error()
            guard mbx_image_file_read_rgb8(path, &image, &error) == 0 else {
                throw PluginError("background image \(error.text)", status: MBX_ERR_INVALID_ARGUMENT)
            }
        }
    }

    /// What the note says of a render: the background, and for a blur its aperture, focus and depth.
    private func renderNote(
        options: mbx_cv_portrait_effect_options, result: mbx_cv_portrait_effect_result, aperture: Double, depthSource: String,
        hasMatte: Bool
    ) -> String {
        let focusFrom: String
        switch result.focus_from {
        case MBX_CV_FOCUSED_ON_POINT: focusFrom = String(format: "the point %.2f,%.2f", options.focus_x, options.focus_y)
        case MBX_CV_FOCUSED_ON_FACE: focusFrom = "the face"
        case MBX_CV_FOCUSED_ON_MATTE: focusFrom = "the portrait matte's subject"
        default: focusFrom = "the sharpest near region of the depth (no matte, no face)"
        }
        guard case .blur = background else {
            return "\(backgroundName); subject: \(hasMatte ? "the portrait matte" : "what lies at or in front of the focal plane of the depth, its edges shared by colour")"
        }
        return String(
                format: "%@ at f/%.1f, focused on %@ (disparity %.2f of 0-1, %.2f either side kept sharp); blur radius %.1f px per unit of disparity; depth: %@",
                backgroundName, aperture, focusFrom, result.focus_disparity, result.sharp_band, result.max_radius, depthSource)
    }

    /// Depth and mattes describe the photo as shot, not the rendered one: removed, and the note says so.
    private func removeSceneImages(of photo: PluginPhoto) throws {
        let removed = Self.sceneRoles.filter { photo.image($0) != nil }
        for role in removed { try photo.removeImage(role) }
        if !removed.isEmpty {
            try photo.setString(
                "note.portraitEffectRemoved",
                "removed \(removed.joined(separator: ", ")): they describe the photo as shot, not the rendered one (the keep-auxiliary parameter keeps them; render: --keep-auxiliary)")
        }
    }

    private var backgroundName: String {
        switch background {
        case .blur: return "background blurred"
        case .transparent: return "background cut away (alpha)"
        case .colour: return "background replaced by a colour"
        case .image(let path): return "background replaced by \((path as NSString).lastPathComponent)"
        }
    }

    /// The largest face (stored pixels), for focusing a photo that has depth and no matte: the one
    /// an earlier stage found the same way on the same pixels (`SharedFace`), else found now.
    private func findFace(_ primary: PluginImage, orientation: Int32, photo: PluginPhoto) throws -> mbx_cv_rect? {
        var options = mbx_cv_matte_options()
        options.effort = 1
        options.orientation = orientation
        var view = primary.visionImage
        return try faces.withStrings(&options) { try SharedFace.find(in: primary, view: &view, options: &$0, photo: photo) }?.box
    }
}

/// Calls body with a pointer to the value, or nil when there is none.
private func withOptionalPointer<T, R>(_ value: inout T?, _ body: (UnsafeMutablePointer<T>?) -> R) -> R {
    guard value != nil else { return body(nil) }
    var unwrapped = value!
    defer { value = unwrapped }
    return body(&unwrapped)
}

@_cdecl("mbx_plugin_get")
public func mbx_plugin_get(_ index: UInt32, _ host: UnsafePointer<mbx_host_api>?) -> UnsafePointer<mbx_plugin_descriptor>? {
    PluginExport.descriptor(index: index, host: host, processors: [PortraitEffect.self])
}
