import Foundation
import MatteboxPluginSDK

/// A model installed by `mattebox models install`, named in a pipeline
/// (`model: modnet`) instead of by path: where its file is, and how it is fed
/// and read, so the user sets nothing else. The data folders are searched in
/// the host's order: `$XDG_DATA_HOME/mattebox` (or `~/.local/share/mattebox`),
/// `share/mattebox` of the installation this plugin belongs to, then
/// `/usr/local/share/mattebox` and `/usr/share/mattebox`.
package struct NamedModel: Sendable {
    package var name: String
    /// What the model is, for notes ("MODNet portrait matting").
    package var title: String
    package var fileName: String
    package var inputSize: Int32
    package var mean: (Float, Float, Float)
    package var std: (Float, Float, Float)
    package var crop: Double
    package var classes: String
    /// Classes of hair on the face the model labels apart from skin (eyebrows): their colours tell
    /// a beard, which a face parser trained on CelebAMask-HQ calls skin.
    package var facialHair: [Int32] = []
    /// Classes a beard grows on (the face's skin, not the neck).
    package var beardGround: [Int32] = []
    /// The parts only a person's face has (brows, eyes, ears, nose, mouth, lips): a face detector's
    /// face where the parser finds none of them is an animal's, a statue's or a toy's.
    package var faceFeatures: [Int32] = []

    /// MODNet: RGB, (x − 127.5) / 127.5, a 512 px square of the whole photo, one alpha channel.
    package static let modnet = NamedModel(
        name: "modnet", title: "MODNet portrait matting", fileName: "modnet-512.onnx", inputSize: 512,
        mean: (0.5, 0.5, 0.5), std: (0.5, 0.5, 0.5), crop: 0, classes: "person=0")

    /// face-parsing.PyTorch's BiSeNet: RGB, ImageNet's mean and std, a square 2.5 face widths wide about
    /// the face, 19 CelebAMask-HQ classes. Skin is the face's skin, ears, nose and neck (brows, eyes,
    /// lips and a beard's hair left out, as Apple's skin matte leaves them); teeth the inner mouth;
    /// glasses frames and lenses.
    package static let faceparser = NamedModel(
        name: "faceparser", title: "BiSeNet face parsing", fileName: "face-parser-512.onnx", inputSize: 512,
        mean: (0.485, 0.456, 0.406), std: (0.229, 0.224, 0.225), crop: 2.5, classes: "skin=1,7,8,10,14;hair=17;teeth=11;glasses=6",
        facialHair: [2, 3], beardGround: [1], faceFeatures: [2, 3, 4, 5, 7, 8, 10, 11, 12, 13])

    /// The face parser's every class but the background (skin, brows, eyes, glasses, ears, earring, nose,
    /// mouth, lips, neck, necklace, cloth, hair, hat): the person as it sees them within its square.
    package static let faceparserPerson = "person=" + (1...18).map(String.init).joined(separator: ",")

    /// U²-Net-p: RGB, ImageNet's mean and std, a 320 px square of the whole photo, one channel: how
    /// much each pixel belongs to the photo's most salient object (a glass, a pet), for a photo with no face.
    package static let u2netp = NamedModel(
        name: "u2netp", title: "U²-Net-p salient object detection", fileName: "u2netp-320.onnx", inputSize: 320,
        mean: (0.485, 0.456, 0.406), std: (0.229, 0.224, 0.225), crop: 0, classes: "subject=0")

    /// Segmentation models a `model` parameter may name.
    package static let known = [modnet, faceparser, u2netp]

    package static func named(_ name: String) -> NamedModel? { known.first { $0.name == name } }

    /// The installed file, or nil when `mattebox models install NAME` has not run.
    package func installedFile(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        Self.installedFile(model: name, file: fileName, environment: environment)
    }

    /// The file `mattebox models install MODEL` put in a data folder, or nil:
    /// any installed model, segmentation or not (CenterFace, `centerface-320.onnx`).
    package static func installedFile(
        model name: String, file fileName: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
        var folders: [String] = []
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty {
            folders.append("\(data)/mattebox")
        } else if let home = environment["HOME"], !home.isEmpty {
            folders.append("\(home)/.local/share/mattebox")
        }
        if let installation = Self.installationShare { folders.append(installation) }
        folders += ["/usr/local/share/mattebox", "/usr/share/mattebox"]
        return folders.map { "\($0)/models/\(name)/\(fileName)" }.first { FileManager.default.isReadableFile(atPath: $0) }
    }

    /// `PREFIX/share/mattebox` for a plugin installed in `PREFIX/lib/mattebox/plugins-1`.
    private static var installationShare: String? {
        // The file this code was loaded from: the mapping of /proc/self/maps that holds it.
        let address = UInt(bitPattern: #dsohandle)
        guard let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) else { return nil }
        let file = maps.split(separator: "\n").lazy.compactMap { line -> String? in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            let range = fields.first?.split(separator: "-").compactMap { UInt($0, radix: 16) } ?? []
            guard fields.count >= 6, range.count == 2, (range[0]..<range[1]).contains(address) else { return nil }
            return fields[5...].joined(separator: " ")
        }.first
        guard let file, file.hasPrefix("/") else { return nil }
        let plugin = URL(fileURLWithPath: file)
        return plugin.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("share/mattebox").path
    }
}
