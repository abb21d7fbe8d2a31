import Foundation
import MatteboxPluginSDK

/// A segmentation network the user supplies (ONNX, run by OpenCV's dnn
/// module) that replaces a plugin's classical method. No weights ship with
/// Mattebox; these parameters say how to feed the model and which of its
/// output classes make which matte, so the matte plugins read them alike.
package struct SegmentationModel {
    /// The model parameters, with the defaults that suit this plugin's kind of model.
    package static func parameters(crop: Double, classes: String, classesHelp: String, automatic: NamedModel? = nil) -> [Parameter] {
        [
            Parameter(
                "model", .string(default: automatic == nil ? "" : "auto"),
                description: automatic.map {
                    "auto (the default): \($0.title) when `mattebox models install \($0.name)` has installed it, else the "
                        + "classical method; \($0.name): that model, an error when not installed; none: the classical method; "
                        + "or an ONNX file"
                } ?? "ONNX segmentation model to use instead of the classical method: a file, or an installed model's name (see `mattebox models list`)"),
            Parameter("model-input", .string(default: "512x512"), description: "the model's input size, WIDTHxHEIGHT"),
            Parameter(
                "model-mean", .string(default: "0.485,0.456,0.406"),
                description: "per-plane mean subtracted from samples scaled to 0...1 (default: ImageNet's)"),
            Parameter("model-std", .string(default: "0.229,0.224,0.225"), description: "per-plane divisor after the mean"),
            Parameter("model-bgr", .bool(default: false), description: "the model takes B,G,R planes (default R,G,B)"),
            Parameter(
                "model-crop", .double(default: crop, range: 0...20),
                description: "0: the model sees the whole photo; k: a square k face widths wide around the face"),
            Parameter("model-classes", .string(default: classes), description: classesHelp),
        ]
    }

    package let path: String
    /// Which model classes make which matte; a plugin may add to them (eyebrows to hair).
    package var classes: [String: [Int32]]
    /// The installed model named, or nil for a file the user gave.
    package let named: NamedModel?
    /// What made the matte, for the photo's notes: "MODNet portrait matting (cv::dnn)", or the file.
    package let method: String
    private var options: mbx_cv_model_options

    /// nil when no model is set. `names` are the mattes `model-classes` may name.
    /// A name without a path (`modnet`) is a model `mattebox models install`
    /// put in the data folders, fed and read as that model needs (the other
    /// model-* parameters are then not used).
    ///
    /// `auto` (where `automatic` is given: the portrait matte) is that model
    /// when it is installed and the classical method when it is not.
    package init?(_ parameters: PluginParameters, names: Set<String>, automatic: NamedModel? = nil) throws {
        var value = try parameters.string("model")
        if value == "auto" {
            guard let automatic, automatic.installedFile() != nil else { return nil }
            value = automatic.name
        }
        if value.isEmpty || value == "none" { return nil }
        if !value.contains("/"), !value.hasSuffix(".onnx") {
            guard let named = NamedModel.named(value) else {
                let known = NamedModel.known.map(\.name).joined(separator: ", ")
                throw PluginError("model: \(value) is neither a file nor a known model (\(known))", status: MBX_ERR_INVALID_ARGUMENT)
            }
            guard let installed = try SegmentationModel(installed: named, names: names) else {
                throw PluginError(
                    "model: \(value) is not installed; run `mattebox models install \(value)`", status: MBX_ERR_INVALID_ARGUMENT)
            }
            self = installed
            return
        }
        path = value
        named = nil
        method = "the ONNX model \(value) (cv::dnn)"
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw PluginError("model: \(path) does not exist or cannot be read", status: MBX_ERR_INVALID_ARGUMENT)
        }
        options = mbx_cv_model_options()
        let size = try parameters.string("model-input").lowercased().split(separator: "x").compactMap { Int32($0) }
        guard size.count == 2, size.allSatisfy({ (1...4096).contains($0) }) else {
            throw PluginError("model-input takes WIDTHxHEIGHT, e.g. 512x512", status: MBX_ERR_INVALID_ARGUMENT)
        }
        (options.input_width, options.input_height) = (size[0], size[1])
        options.mean = try SegmentationModel.triple(parameters.string("model-mean"), name: "model-mean")
        options.std = try SegmentationModel.triple(parameters.string("model-std"), name: "model-std")
        guard options.std.0 != 0, options.std.1 != 0, options.std.2 != 0 else {
            throw PluginError("model-std must not be 0", status: MBX_ERR_INVALID_ARGUMENT)
        }
        options.bgr = try parameters.bool("model-bgr") ? 1 : 0
        options.crop = try parameters.double("model-crop")
        classes = try SegmentationModel.classMap(parameters.string("model-classes"), names: names)
    }

    /// An installed model, fed and read as it needs; nil when `mattebox models install NAME` has not run.
    /// `classes` replaces the model's own map of classes to mattes ("person=1,2").
    package init?(installed named: NamedModel, names: Set<String>, classes classMap: String? = nil) throws {
        guard let file = named.installedFile() else { return nil }
        path = file
        self.named = named
        method = "\(named.title) (cv::dnn)"
        options = mbx_cv_model_options()
        (options.input_width, options.input_height) = (named.inputSize, named.inputSize)
        options.mean = named.mean
        options.std = named.std
        options.crop = named.crop
        classes = try SegmentationModel.classMap(classMap ?? named.classes, names: names)
    }

    /// Runs the model and writes each named matte's plane. `surfaces` says which
    /// are hair and skin (MBX_CV_SURFACE_*): with a face crop and the person's
    /// matte they go on past the crop over the person, and skin leaves a beard out.
    /// `everyFace`: with a face crop, the other faces the face model finds are parsed too.
    /// `roll`: the face's (`mbx_cv_face.roll_degrees`); with a face crop the model sees the face turned upright.
    package func run(
        _ image: inout mbx_cv_image, options matteOptions: inout mbx_cv_matte_options, face: mbx_cv_rect, roll: Double = 0,
        planes: [String: mbx_cv_plane], person: mbx_cv_image? = nil, surfaces: [String: Int32] = [:], everyFace: Bool = false
    ) throws {
        let wanted = planes.keys.sorted().filter { classes[$0] != nil }
        let classLists = wanted.map { classes[$0]! }
        var model = options
        model.every_face = everyFace ? 1 : 0
        model.face_roll = roll
        var person = person ?? mbx_cv_image()
        let hasPerson = person.data != nil
        let facialHair = named?.facialHair ?? [], beardGround = named?.beardGround ?? []
        try path.withCString { path in
            model.path = path
            try withClassPointers(classLists + [facialHair, beardGround]) { pointers in
                model.facial_hair_classes = pointers[classLists.count].baseAddress
                model.facial_hair_class_count = Int32(facialHair.count)
                model.beard_ground_classes = pointers[classLists.count + 1].baseAddress
                model.beard_ground_class_count = Int32(beardGround.count)
                var outputs = zip(wanted, pointers).map { name, list in
                    mbx_cv_model_output(
                        plane: planes[name]!, classes: list.baseAddress, class_count: Int32(list.count),
                        surface: surfaces[name] ?? Int32(MBX_CV_SURFACE_OTHER))
                }
                var error = mbx_cv_error()
                let status = withUnsafePointer(to: &person) { personPointer in
                    model.person = hasPerson ? personPointer : nil
                    return mbx_cv_model_mattes(&image, &matteOptions, face, &model, &outputs, Int32(outputs.count), &error)
                }
                guard status == 0 else { throw PluginError("segmentation model: \(error.text)") }
            }
        }
    }

    private func withClassPointers<R>(
        _ lists: [[Int32]], _ body: ([UnsafeBufferPointer<Int32>]) throws -> R
    ) rethrows -> R {
        let buffers = lists.map { list -> UnsafeMutableBufferPointer<Int32> in
            let buffer = UnsafeMutableBufferPointer<Int32>.allocate(capacity: max(1, list.count))
            _ = buffer.initialize(from: list)
            return buffer
        }
        defer { buffers.forEach { $0.deallocate() } }
        return try body(buffers.enumerated().map { UnsafeBufferPointer(rebasing: $1[0..<lists[$0].count]) })
    }

    static func triple(_ text: String, name: String) throws -> (Float, Float, Float) {
        let values = text.split(separator: ",").compactMap { Float($0.trimmingCharacters(in: .whitespaces)) }
        guard values.count == 3 else { throw PluginError("\(name) takes three numbers, e.g. 0.5,0.5,0.5", status: MBX_ERR_INVALID_ARGUMENT) }
        return (values[0], values[1], values[2])
    }

    /// "hair=17;skin=1,10" → ["hair": [17], "skin": [1, 10]].
    static func classMap(_ text: String, names: Set<String>) throws -> [String: [Int32]] {
        var map: [String: [Int32]] = [:]
        for entry in text.split(separator: ";") {
            let parts = entry.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let numbers = parts.count == 2 ? parts[1].split(separator: ",").compactMap { Int32($0.trimmingCharacters(in: .whitespaces)) } : []
            guard parts.count == 2, names.contains(parts[0]), !numbers.isEmpty, numbers.allSatisfy({ $0 >= 0 }) else {
                throw PluginError(
                    "model-classes: '\(entry)' should be MATTE=CLASS[,CLASS...] with MATTE one of \(names.sorted().joined(separator: ", "))",
                    status: MBX_ERR_INVALID_ARGUMENT)
            }
            map[parts[0]] = numbers
        }
        return map
    }
}
