import MatteboxVisionPluginKit
import MatteboxPluginSDK

/// The portrait effects matte an iPhone stores with portrait photos: the
/// person around the largest face, soft at hair, at half the primary's size.
/// As on iOS it is made only when a face is found; otherwise the photo gets
/// a note saying why. A render asks for more (`without-face`): the photo's
/// salient object as its subject, so a glass or a pet is kept whole.
final class PortraitMatte: PhotoProcessor {
    static let description = ProcessorDescription(
        id: "org.mattebox.portrait-matte", name: "Portrait matte",
        summary: "Finds the person around the largest face (CenterFace or Haar cascade): MODNet through cv::dnn when installed, else GrabCut and a guided filter",
        vendor: "Mattebox", license: "MIT", version: (1, 0, 0), threadSafety: .concurrent,
        inputs: [Port(role: MBX_ROLE_PRIMARY, description: "the photo; faces are looked for upright (EXIF orientation)")],
        outputs: [Port(role: MBX_ROLE_PORTRAIT_MATTE, optional: true, description: "8-bit, 255 = person; only with a face")],
        parameters: VisionParameters.common + [
            Parameter(
                "existing", .choice(default: "keep", values: ["keep", "replace"]),
                description: "a portrait matte the photo already has (an iPhone's, in HEIC or JPEG): keep it, or replace it with a new one"),
            Parameter(
                "with-depth", .choice(default: "always", values: ["always", "model-only", "never"]),
                description: "for a photo that carries depth: always make a matte; only with a neural model (the classical cut-out is no better than the depth's own edges); or never"),
            Parameter(
                "without-face", .choice(default: "none", values: ["none", "auto", "salient"]),
                description: "when no face is found: no matte (none, as on iOS); the photo's salient object (an object, a pet) "
                    + "by U²-Net-p (`mattebox models install u2netp`) as the subject, taken only when it stands out and, with "
                    + "depth, lies nearer than the rest (salient; an error when not installed); or that when installed (auto: render uses it)"),
            Parameter(
                "skip-phone-focus", .bool(default: false),
                description: "make no matte for a photo with depth whose phone chose its focus (Lens Blur's GFocus): a portrait effect "
                    + "that follows the phone renders it from the depth alone, as the phone did (render sets it when it blurs at the phone's focus)"),
        ]
            + SegmentationModel.parameters(
                crop: 0, classes: "person=1",
                classesHelp: "which model classes are the person: person=CLASS[,CLASS...] "
                    + "(default 1, for two-class models; a one-channel matting model is person=0)",
                automatic: .modnet))

    private let settings: VisionParameters
    private let replace: Bool
    private let withDepth: String
    private let model: SegmentationModel?
    /// U²-Net-p, for a photo with no face (nil: not asked for, or `auto` and not installed).
    private let salient: SegmentationModel?
    private let withoutFace: String
    private let skipPhoneFocus: Bool

    init(parameters: PluginParameters) throws {
        settings = try VisionParameters(parameters)
        replace = try parameters.string("existing") == "replace"
        withDepth = try parameters.string("with-depth")
        model = try SegmentationModel(parameters, names: ["person"], automatic: .modnet)
        withoutFace = try parameters.string("without-face")
        skipPhoneFocus = try parameters.bool("skip-phone-focus")
        salient = withoutFace == "none" ? nil : try SegmentationModel(installed: .u2netp, names: ["subject"])
        if withoutFace == "salient", salient == nil {
            throw PluginError(
                "without-face: salient needs U²-Net-p; run `mattebox models install u2netp` (or use auto)", status: MBX_ERR_INVALID_ARGUMENT)
        }
    }

    func process(_ photo: PluginPhoto) throws {
        if !replace, photo.image(MBX_ROLE_PORTRAIT_MATTE) != nil { return }
        if skipPhoneFocus, photo.image(MBX_ROLE_DISPARITY) != nil || photo.image(MBX_ROLE_DEPTH) != nil,
            photo.string("shared." + PhoneFocus.sharedName).flatMap(PhoneFocus.init(encoded:)) != nil
        {
            try photo.setString(
                MBX_META_NOTE_PORTRAIT_MATTE,
                "no portrait matte made: the phone chose this photo's focus (Lens Blur's GFocus), which a render follows from the depth alone")
            return
        }
        if photo.image(MBX_ROLE_DISPARITY) != nil || photo.image(MBX_ROLE_DEPTH) != nil, withDepth == "never" || (withDepth == "model-only" && model == nil) {
            try photo.setString(
                MBX_META_NOTE_PORTRAIT_MATTE,
                "no portrait matte made: the photo's own depth outlines the subject"
                    + (model == nil ? " (with MODNet installed, `mattebox models install modnet`, a matte is made too)" : ""))
            return
        }
        guard let primary = photo.image(MBX_ROLE_PRIMARY) else { throw PluginError("the photo has no primary image") }
        var mended: String?
        let found = try settings.withOptions(for: photo) { options -> mbx_cv_rect? in
            var error = mbx_cv_error()
            var view = primary.visionImage
            guard let found = try SharedFace.find(in: primary, view: &view, options: &options, photo: photo) else { return nil }
            let face = found.box
            let (width, height) = settings.matteSize(of: primary)
            let matte = try photo.createImage(
                MBX_ROLE_PORTRAIT_MATTE, width: width, height: height, channels: 1, format: mbx_sample_format(MBX_SAMPLE_U8))
            var plane = matte.visionPlane
            do {
                if let model {
                    try model.run(&view, options: &options, face: face, planes: ["person": plane])
                    if model.named?.name == NamedModel.modnet.name {
                        mended = try SecondOpinion.mend(matte, face: found, primary: primary, view: &view, options: &options)
                    }
                } else if mbx_cv_portrait_matte(&view, &options, face, &plane, &error) != 0 {
                    throw PluginError("portrait matte: \(error.text)")
                }
            } catch {
                try? photo.removeImage(MBX_ROLE_PORTRAIT_MATTE)
                throw error
            }
            return face
        }
        if found != nil {
            try photo.setString("shared." + PortraitMatteSubject.sharedName, PortraitMatteSubject.madePerson)
            try photo.setString(
                "note.portraitMatteMethod",
                (model?.method ?? "classical: GrabCut from a head-and-shoulders layout, guided filter "
                    + "(mattebox models install modnet for the neural matte)") + "; face found by \(settings.faceMethod)"
                    + (mended.map { "; \($0)" } ?? ""))
        }
        if found == nil {
            if withoutFace != "none", try salientSubject(photo, primary: primary) { return }
            try photo.setString(
                MBX_META_NOTE_PORTRAIT_MATTE,
                "no face found, so no portrait matte (as on iOS)" + (withoutFace == "auto" && salient == nil
                    ? "; with U²-Net-p installed (`mattebox models install u2netp`) the photo's salient object would be the subject" : ""))
            photo.log("no face found; no portrait matte")
        }
    }

    /// The photo's salient object as its portrait matte, when it is a subject (`SalientSubject`);
    /// false, with the reason in the note, when it is not or there is no model.
    private func salientSubject(_ photo: PluginPhoto, primary: PluginImage) throws -> Bool {
        guard let salient else { return false }
        let (width, height) = settings.matteSize(of: primary)
        let matte = try photo.createImage(
            MBX_ROLE_PORTRAIT_MATTE, width: width, height: height, channels: 1, format: mbx_sample_format(MBX_SAMPLE_U8))
        do {
            try settings.withOptions(for: photo) { options in
                var view = primary.visionImage
                try salient.run(&view, options: &options, face: mbx_cv_rect(), planes: ["subject": matte.visionPlane])
            }
        } catch {
            try? photo.removeImage(MBX_ROLE_PORTRAIT_MATTE)
            throw error
        }
        let disparity = photo.image(MBX_ROLE_DISPARITY)
        let depth = disparity ?? photo.image(MBX_ROLE_DEPTH)
        if let reason = SalientSubject.rejection(of: matte, depth: depth, depthIsDistance: disparity == nil) {
            try photo.removeImage(MBX_ROLE_PORTRAIT_MATTE)
            try photo.setString(MBX_META_NOTE_PORTRAIT_MATTE, "no face found and no subject: \(reason); no portrait matte")
            photo.log("no face and no salient subject; no portrait matte")
            return true
        }
        try photo.setString(
            "note.portraitMatteMethod",
            "no face found: the photo's salient object as the subject, by \(salient.method), not a person matte")
        try photo.setString("shared." + PortraitMatteSubject.sharedName, PortraitMatteSubject.salientObject)
        return true
    }
}

@_cdecl("mbx_plugin_get")
public func mbx_plugin_get(_ index: UInt32, _ host: UnsafePointer<mbx_host_api>?) -> UnsafePointer<mbx_plugin_descriptor>? {
    PluginExport.descriptor(index: index, host: host, processors: [PortraitMatte.self])
}
