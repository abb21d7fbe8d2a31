import MatteboxPluginSDK
import MatteboxVisionPluginKit

/// The semantic segmentation mattes an iPhone stores: hair, skin and teeth
/// for the person around the largest face, and the sky. Like iOS the person
/// mattes are made only when a face is found, teeth only when the mouth
/// shows them, and the sky only when it shows; the photo gets a note for each
/// matte left out and why. With the face parser installed (`mattebox models
/// install faceparser`) it makes the hair, skin, teeth and glasses mattes by
/// default; without it, colour models and GrabCut make the first three and no
/// glasses matte is made.
final class SemanticMattes: PhotoProcessor {
    static let roles = [
        "hair": MBX_ROLE_HAIR_MATTE, "skin": MBX_ROLE_SKIN_MATTE, "teeth": MBX_ROLE_TEETH_MATTE,
        "glasses": MBX_ROLE_GLASSES_MATTE, "sky": MBX_ROLE_SKY_MATTE,
    ]
    static let personMattes: Set<String> = ["hair", "skin", "teeth", "glasses"]
    /// Glasses show when their matte covers this share of the face's box: frames alone of a thin
    /// pair cover about a tenth of it, so a few stray pixels of the class are not a pair of glasses.
    static let smallestGlassesShare = 0.03
    /// A person's face shows its features (brows, eyes, ears, nose, lips) over about a tenth of its
    /// box, a face in profile over a few hundredths: under half a hundredth (a few stray pixels), the
    /// face parser saw none where the face detector found a face (a pug's, a figurine's, or a person's
    /// turned away, whose features are hidden, which iOS would not take for a face either).
    static let smallestFeatureShare = 0.005
    /// The face parser's output that holds the face's features, for that check only.
    static let featuresOutput = "face features"
    /// The pose keypoints a person matte should hold, as the notes name them.
    static let keypointNames: [(bit: UInt32, name: String)] = [
        (MBX_CV_POSE_LEFT_ELBOW, "left elbow"), (MBX_CV_POSE_RIGHT_ELBOW, "right elbow"),
        (MBX_CV_POSE_LEFT_WRIST, "left wrist"), (MBX_CV_POSE_RIGHT_WRIST, "right wrist"),
        (MBX_CV_POSE_LEFT_KNEE, "left knee"), (MBX_CV_POSE_RIGHT_KNEE, "right knee"),
        (MBX_CV_POSE_LEFT_ANKLE, "left ankle"), (MBX_CV_POSE_RIGHT_ANKLE, "right ankle"),
    ]

    static let description = ProcessorDescription(
        id: "org.mattebox.semantic-mattes", name: "Semantic mattes",
        summary: "Hair, skin, teeth and glasses mattes around the largest face (a face parser through cv::dnn, or colour models and GrabCut) and the sky matte",
        vendor: "Mattebox", license: "MIT", version: (1, 0, 0), threadSafety: .concurrent,
        inputs: [
            Port(role: MBX_ROLE_PRIMARY, description: "the photo; faces are looked for upright (EXIF orientation)"),
            Port(role: MBX_ROLE_PORTRAIT_MATTE, optional: true, description: "the person; computed when absent"),
        ],
        outputs: [
            Port(role: MBX_ROLE_HAIR_MATTE, optional: true, description: "8-bit; only with a face and hair"),
            Port(role: MBX_ROLE_SKIN_MATTE, optional: true, description: "8-bit; only with a face"),
            Port(role: MBX_ROLE_TEETH_MATTE, optional: true, description: "8-bit; only when teeth show"),
            Port(role: MBX_ROLE_GLASSES_MATTE, optional: true, description: "8-bit; only with a face parser, when glasses show"),
            Port(role: MBX_ROLE_SKY_MATTE, optional: true, description: "8-bit; only when sky shows (no face needed)"),
        ],
        parameters: VisionParameters.common + FaceFinding.landmarkParameters + [
            Parameter(
                "mattes", .string(default: "hair,skin,teeth,glasses,sky"),
                description: "which mattes to make, comma-separated: hair, skin, teeth, glasses (with a face parser), sky"),
            Parameter(
                "existing", .choice(default: "keep", values: ["keep", "replace"]),
                description: "mattes the photo already has (an iPhone's): keep them, or replace them with new ones"),
            Parameter("brows", .bool(default: false), description: "count the eyebrows as hair in the hair matte"),
        ]
            + SegmentationModel.parameters(
                crop: 2.5, classes: NamedModel.faceparser.classes,
                classesHelp: "which model classes make which matte: MATTE=CLASS[,CLASS...] separated by ';' "
                    + "(default: the CelebAMask-HQ labels of common face parsers: skin 1, ears 7 and 8, nose 10, neck 14, "
                    + "inner mouth 11, hair 17, glasses 6; `model: faceparser` sets them itself)",
                automatic: .faceparser))

    private let settings: VisionParameters
    private let wanted: Set<String>
    private let replace: Bool
    private let browsInHair: Bool
    private var model: SegmentationModel?

    init(parameters: PluginParameters) throws {
        settings = try VisionParameters(parameters)
        replace = try parameters.string("existing") == "replace"
        browsInHair = try parameters.bool("brows")
        let names = try parameters.string("mattes").split(separator: ",").map { String($0.filter { !$0.isWhitespace }) }
        guard !names.isEmpty, names.allSatisfy({ SemanticMattes.roles[$0] != nil }) else {
            throw PluginError("mattes takes hair, skin, teeth, glasses and/or sky, comma-separated", status: MBX_ERR_INVALID_ARGUMENT)
        }
        wanted = Set(names)
        model = try SegmentationModel(parameters, names: SemanticMattes.personMattes, automatic: .faceparser)
        // The face parser labels eyebrows apart (CelebAMask-HQ's classes 2 and 3); `brows` counts them as hair.
        if browsInHair, model?.named?.name == NamedModel.faceparser.name { model?.classes["hair", default: []] += [2, 3] }
        if let features = model?.named?.faceFeatures, !features.isEmpty { model?.classes[Self.featuresOutput] = features }
        // Glasses come only from a model that names them; by default they are left out with a note.
        if let model, let missing = wanted.intersection(SemanticMattes.personMattes).subtracting(model.classes.keys)
            .subtracting(["glasses"]).sorted().first
        {
            throw PluginError("model-classes names no class for the \(missing) matte", status: MBX_ERR_INVALID_ARGUMENT)
        }
    }

    func process(_ photo: PluginPhoto) throws {
        let todo = wanted.filter { replace || photo.image(SemanticMattes.roles[$0]!) == nil }
        guard !todo.isEmpty else { return }
        guard let primary = photo.image(MBX_ROLE_PRIMARY) else { throw PluginError("the photo has no primary image") }
        let (width, height) = settings.matteSize(of: primary)
        let notes = try settings.withOptions(for: photo) { options -> [String] in
            var view = primary.visionImage
            let face = try SharedFace.find(in: primary, view: &view, options: &options, photo: photo)
            var notes: [String] = []
            let personTodo = todo.intersection(SemanticMattes.personMattes)
            if !personTodo.isEmpty {
                if let face {
                    notes += try personMattes(
                        personTodo, view: &view, options: &options, face: face, size: (width, height), photo: photo)
                } else {
                    var left = personTodo
                    // Hands, arms, legs or feet without a face: skin from the person matte, as iOS does.
                    if left.contains("skin"), photo.image(MBX_ROLE_PORTRAIT_MATTE) != nil {
                        left.remove("skin")
                        if let note = try skinWithoutFace(view: &view, options: &options, size: (width, height), photo: photo) {
                            notes.append(note)
                        }
                    }
                    let names = left.sorted()
                    if !names.isEmpty {
                        let list = names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " or " + names.last!
                        notes.append("no face found, so no \(list) matte\(names.count == 1 ? "" : "s") (as on iOS)")
                    }
                }
            }
            if todo.contains("sky"), let note = try skyMatte(view: &view, options: &options, face: face?.box, size: (width, height), photo: photo) {
                notes.append(note)
            }
            return notes
        }
        if !notes.isEmpty {
            let note = notes.joined(separator: "; ")
            try photo.setString(MBX_META_NOTE_SEMANTIC_MATTES, note)
            photo.log(note)
        }
    }

    /// Hair, skin and teeth for the face; notes for those left out.
    private func personMattes(
        _ todo: Set<String>, view: inout mbx_cv_image, options: inout mbx_cv_matte_options, face: mbx_cv_face,
        size: (Int, Int), photo: PluginPhoto
    ) throws -> [String] {
        var planes: [String: mbx_cv_plane] = [:]
        var absent: [String] = []
        var todo = todo
        if todo.contains("glasses"), model?.classes["glasses"] == nil {
            todo.remove("glasses")
            absent.append(
                model == nil
                    ? "no glasses matte: only the face parser makes one (mattebox models install faceparser)"
                    : "no glasses matte: the model's classes name none")
        }
        guard !todo.isEmpty else { return absent }
        for name in todo.sorted() {
            planes[name] = try photo.createImage(
                SemanticMattes.roles[name]!, width: size.0, height: size.1, channels: 1, format: mbx_sample_format(MBX_SAMPLE_U8)
            ).visionPlane
        }
        let made: (teethShow: Bool, notes: [String])
        do {
            made = try makeMattes(&view, options: &options, face: face, planes: planes, photo: photo)
        } catch {
            for name in planes.keys { try? photo.removeImage(SemanticMattes.roles[name]!) }
            if error is NotAPersonsFace {
                let names = todo.sorted()
                let list = names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " or " + names.last!
                return absent + [
                    "the face parser found no brows, eyes, ears, nose or lips on the face found (an animal's, a statue's?), "
                        + "so no \(list) matte\(names.count == 1 ? "" : "s")"
                ]
            }
            throw error
        }
        let teethShow = made.teethShow
        absent += made.notes
        if todo.contains("glasses"), let glasses = photo.image(MBX_ROLE_GLASSES_MATTE) {
            let share = glasses.shareAtLeastHalf(ofBox: face.box, primary: photo.image(MBX_ROLE_PRIMARY))
            if share < Self.smallestGlassesShare {
                try photo.removeImage(MBX_ROLE_GLASSES_MATTE)
                absent.append("no glasses found on the face, so no glasses matte")
            }
        }
        if todo.contains("hair"), let hair = photo.image(MBX_ROLE_HAIR_MATTE), hair.isBlank {
            try photo.removeImage(MBX_ROLE_HAIR_MATTE)
            absent.append("no hair found above the face, so no hair matte")
        }
        if todo.contains("teeth"), !teethShow {
            try photo.removeImage(MBX_ROLE_TEETH_MATTE)
            absent.append(
                face.box.width < MBX_CV_SMALLEST_TEETH_FACE
                    ? "the face is under \(MBX_CV_SMALLEST_TEETH_FACE) px wide, too small to look for teeth, so no teeth matte"
                    : "no teeth showing, so no teeth matte")
        }
        return absent
    }

    /// The skin matte from the photo's person matte when no face was found; a note when it shows no skin.
    private func skinWithoutFace(
        view: inout mbx_cv_image, options: inout mbx_cv_matte_options, size: (Int, Int), photo: PluginPhoto
    ) throws -> String? {
        guard var person = photo.image(MBX_ROLE_PORTRAIT_MATTE)?.visionImage else { return nil }
        var plane = try photo.createImage(
            MBX_ROLE_SKIN_MATTE, width: size.0, height: size.1, channels: 1, format: mbx_sample_format(MBX_SAMPLE_U8)
        ).visionPlane
        var found: Int32 = 0
        var error = mbx_cv_error()
        guard mbx_cv_skin_without_face(&view, &options, &person, &plane, &found, &error) == 0 else {
            try? photo.removeImage(MBX_ROLE_SKIN_MATTE)
            throw PluginError("skin matte: \(error.text)")
        }
        guard found != 0 else {
            try photo.removeImage(MBX_ROLE_SKIN_MATTE)
            return "no face found and no skin in the portrait matte, so no skin matte"
        }
        return nil
    }

    /// The sky matte (no face needed; the person, when matted, is held out); a note when no sky shows.
    private func skyMatte(
        view: inout mbx_cv_image, options: inout mbx_cv_matte_options, face: mbx_cv_rect?, size: (Int, Int),
        photo: PluginPhoto
    ) throws -> String? {
        var plane = try photo.createImage(
            MBX_ROLE_SKY_MATTE, width: size.0, height: size.1, channels: 1, format: mbx_sample_format(MBX_SAMPLE_U8)
        ).visionPlane
        var found: Int32 = 0
        var error = mbx_cv_error()
        let exposure = photo.string(MBX_META_EXPOSURE_VALUE).flatMap(Double.init) ?? .nan
        let status: Int32
        if var person = photo.image(MBX_ROLE_PORTRAIT_MATTE)?.visionImage {
            status = mbx_cv_sky_matte(&view, &options, &person, face?.width ?? 0, exposure, &plane, &found, &error)
        } else {
            status = mbx_cv_sky_matte(&view, &options, nil, face?.width ?? 0, exposure, &plane, &found, &error)
        }
        guard status == 0 else {
            try? photo.removeImage(MBX_ROLE_SKY_MATTE)
            throw PluginError("sky matte: \(error.text)")
        }
        guard found != 0 else {
            try photo.removeImage(MBX_ROLE_SKY_MATTE)
            return "no sky found, so no sky matte"
        }
        return nil
    }

    /// Fills the planes, with the user's model or the classical method;
    /// says whether teeth show, with notes on how the mattes were made when
    /// that differs from what was asked (no landmarks, a person matte not trusted).
    private func makeMattes(
        _ view: inout mbx_cv_image, options: inout mbx_cv_matte_options, face: mbx_cv_face,
        planes: [String: mbx_cv_plane], photo: PluginPhoto
    ) throws -> (teethShow: Bool, notes: [String]) {
        if let model {
            // Hair falls past the parser's square, and hands and arms show the face's skin: both go on over the person.
            let person = photo.image(MBX_ROLE_PORTRAIT_MATTE)?.visionImage
            let features = model.classes[Self.featuresOutput] == nil ? nil : ScratchPlane(like: planes.values.first)
            defer { features?.free() }
            try model.run(
                &view, options: &options, face: face.box, roll: face.roll_degrees,
                planes: planes.merging(features.map { [Self.featuresOutput: $0.plane] } ?? [:]) { kept, _ in kept }, person: person,
                surfaces: ["hair": Int32(MBX_CV_SURFACE_HAIR), "skin": Int32(MBX_CV_SURFACE_SKIN)], everyFace: true)
            try photo.setString("note.semanticMattesMethod", model.method)
            // Counted inside the face's box: stray feature pixels elsewhere in the parser's square (the
            // jules figurine has 0.035 of its box's area of them) are not a face's.
            if let features,
                features.plane.shareAtLeastHalf(ofBox: face.box, primaryWidth: photo.image(MBX_ROLE_PRIMARY)?.width, insideOnly: true)
                < Self.smallestFeatureShare
            {
                throw NotAPersonsFace()
            }
            let notes = person == nil && (planes["hair"] != nil || planes["skin"] != nil)
                ? ["no portrait matte, so hair and skin stop at the edge of the square the face parser saw"] : []
            return (face.box.width >= MBX_CV_SMALLEST_TEETH_FACE && photo.image(MBX_ROLE_TEETH_MATTE)?.isBlank == false, notes)
        }
        var request = mbx_cv_semantic_planes()
        request.brows_in_hair = browsInHair ? 1 : 0
        request.hair = planes["hair"] ?? mbx_cv_plane()
        request.skin = planes["skin"] ?? mbx_cv_plane()
        request.teeth = planes["teeth"] ?? mbx_cv_plane()
        var error = mbx_cv_error()
        var face = face
        let status: Int32
        if var person = photo.image(MBX_ROLE_PORTRAIT_MATTE)?.visionImage {
            status = mbx_cv_semantic_mattes(&view, &options, &face, &person, &request, &error)
        } else {
            status = mbx_cv_semantic_mattes(&view, &options, &face, nil, &request, &error)
        }
        guard status == 0 else { throw PluginError("semantic mattes: \(error.text)") }
        try photo.setString(
            "note.semanticMattesMethod",
            (request.landmarks_found != 0
                ? "face mesh (MediaPipe's 468 landmarks, cv::dnn)"
                : "face box layout" + (settings.faces.landmarkModel == nil ? " (mattebox models install facemesh for the face mesh)" : ""))
                + (NamedModel.faceparser.installedFile() == nil ? "; mattebox models install faceparser for the face parser" : ""))
        var notes: [String] = []
        if settings.faces.landmarkModel != nil, request.landmarks_found == 0 {
            notes.append("the face mesh did not take the face for one, so its parts were laid out on the face's box")
        }
        if request.person_fallback != 0 {
            notes.append(
                "the portrait matte missed the face (less than half of it), so the hair and skin mattes were built "
                    + "on a person worked out around the face instead")
        }
        if request.pose_outside_person != 0 {
            let parts = Self.keypointNames.filter { request.pose_outside_person & $0.bit != 0 }.map(\.name)
            notes.append("the portrait matte misses the \(parts.joined(separator: ", ")) the pose model found (the person matte may be incomplete)")
        }
        return (request.teeth_found != 0, notes)
    }
}

@_cdecl("mbx_plugin_get")
public func mbx_plugin_get(_ index: UInt32, _ host: UnsafePointer<mbx_host_api>?) -> UnsafePointer<mbx_plugin_descriptor>? {
    PluginExport.descriptor(index: index, host: host, processors: [SemanticMattes.self])
}
