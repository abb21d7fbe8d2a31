import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxPipeline
import MatteboxPluginHost
import MatteboxVision

/// Scores the PortraitMatte and SemanticMattes plugins, run through the real
/// plugin host, on labelled faces (the layout of ../shared/eval/faceparsing):
/// FASSEG for skin, hair and head-and-neck, LaPa for teeth.
package struct FaceEvaluation {
    package struct FacesRow: Sendable, Codable {
        package var face: String
        /// What made the portrait matte, from the photo's notes.
        package var method: String
        package var faceFound: Bool
        package var skinF1: Double
        /// Skin F1 with FASSEG's nose counted as skin: FASSEG labels the nose apart, while Apple's skin
        /// matte and Mattebox's cover it, so `skinF1` counts every nose as an error.
        package var skinF1NoseAsSkin: Double
        package var hairF1: Double
        package var headIoU: Double
        package var headBoundaryIoU: Double
        /// Share of pixels along the hair matte's edge that are soft (between 0 and 255).
        package var hairSoftEdge: Double
        /// A teeth matte on these closed mouths is a false alarm.
        package var teethMatte: Bool
        package var portraitSeconds: Double
        package var semanticSeconds: Double
        /// With a face found, the mattes that failed whole: empty, or under 0.3 F1.
        package var failures: [String] {
            guard faceFound else { return [] }
            return [("hair", hairF1), ("skin", skinF1)].filter { $0.1 < 0.3 }.map { "\($0.0) F1 \(String(format: "%.2f", $0.1))" }
        }
    }

    package struct TeethRow: Sendable, Codable {
        package var method: String
        package var faceFound: Bool
        package var teethFound: Bool
        package var teethF1: Double
        package var skinF1: Double
        package var hairF1: Double
    }

    /// The pipeline scored. Hair is measured as each dataset labels it:
    /// FASSEG counts the eyebrows as hair, LaPa labels them apart.
    /// `portraitModel` is the portrait matte's `model` parameter and `faces`
    /// both plugins' `faces` parameter, `semanticModel` the semantic mattes' `model` (nil: their defaults).
    package static func pipeline(
        browsInHair: Bool, portraitModel: String? = nil, faces: String? = nil, landmarks: String? = nil, semanticModel: String? = nil
    ) -> String {
        let model = portraitModel.map { ", model: \"\($0)\"" } ?? ""
        let finder = faces.map { ", faces: \"\($0)\"" } ?? ""
        let parts = (landmarks.map { ", landmarks: \"\($0)\"" } ?? "") + (semanticModel.map { ", model: \"\($0)\"" } ?? "")
        return """
        stages:
          - plugin: org.mattebox.portrait-matte
            params: { scale: 1\(model)\(finder) }
          - plugin: org.mattebox.semantic-mattes
            params: { scale: 1, brows: \(browsInHair)\(finder)\(parts) }
        """
    }

    let fassegRunner: PipelineRunner
    let lapaRunner: PipelineRunner

    package init(
        registry: PluginRegistry, portraitModel: String? = nil, faces: String? = nil, landmarks: String? = nil, semanticModel: String? = nil
    ) throws {
        func runner(browsInHair: Bool) throws -> PipelineRunner {
            let file = try PipelineFile.parse(
                FaceEvaluation.pipeline(
                    browsInHair: browsInHair, portraitModel: portraitModel, faces: faces, landmarks: landmarks, semanticModel: semanticModel),
                path: "(face evaluation)")
            return try PipelineRunner(pipeline: try PipelineValidator.validate(file, registry: registry), registry: registry)
        }
        fassegRunner = try runner(browsInHair: true)
        lapaRunner = try runner(browsInHair: false)
    }

    /// The mattes the plugins make for one photo, and the stage timings.
    func mattes(for url: URL, runner: PipelineRunner) throws -> (Photo, [StageReport]) {
        var photo = try ImageDecoder.decodePhoto(at: url)
        let reports = try runner.run(&photo)
        return (photo, reports)
    }

    /// FASSEG label colours: background, skin, hair, eyes, nose, mouth.
    static let fassegColours: [(r: Double, g: Double, b: Double)] = [
        (255, 0, 0), (255, 255, 0), (127, 0, 0), (0, 0, 255), (0, 255, 255), (0, 255, 0),
    ]

    package func fasseg(directory: URL) throws -> [FacesRow] {
        let names = (1...10).map(String.init).filter {
            FileManager.default.fileExists(atPath: directory.appendingPathComponent("rgb/\($0).bmp").path)
        }
        return try names.map { name in
            let (photo, reports) = try mattes(for: directory.appendingPathComponent("rgb/\(name).bmp"), runner: fassegRunner)
            let labels = try ImageDecoder.decodePhoto(at: directory.appendingPathComponent("labels/\(name).bmp")).primary
            let classes = (0..<(labels.width * labels.height)).map { i -> Int in
                let x = i % labels.width, y = i / labels.width
                let (r, g, b) = (labels.sample(x: x, y: y, channel: 0), labels.sample(x: x, y: y, channel: 1), labels.sample(x: x, y: y, channel: 2))
                return FaceEvaluation.fassegColours.indices.min { a, c in
                    let p = FaceEvaluation.fassegColours[a], q = FaceEvaluation.fassegColours[c]
                    return pow(p.r - r, 2) + pow(p.g - g, 2) + pow(p.b - b, 2) < pow(q.r - r, 2) + pow(q.g - g, 2) + pow(q.b - b, 2)
                }!
            }
            let empty = QualityMetrics.Mask(repeating: false, count: classes.count)
            let mask = { (role: ImageRole) in photo.auxiliary[role].map(QualityMetrics.threshold) ?? empty }
            let head = mask(.portraitMatte), truthHead = classes.map { $0 != 0 }
            return FacesRow(
                face: name, method: FaceEvaluation.method(of: photo), faceFound: photo.auxiliary[.portraitMatte] != nil,
                skinF1: QualityMetrics.f1(mask(.skinMatte), classes.map { $0 == 1 }),
                skinF1NoseAsSkin: QualityMetrics.f1(mask(.skinMatte), classes.map { $0 == 1 || $0 == 4 }),
                hairF1: QualityMetrics.f1(mask(.hairMatte), classes.map { $0 == 2 }),
                headIoU: QualityMetrics.iou(head, truthHead),
                headBoundaryIoU: QualityMetrics.boundaryIoU(head, truthHead, width: labels.width, height: labels.height),
                hairSoftEdge: photo.auxiliary[.hairMatte].map { QualityMetrics.softEdgeShare($0) } ?? 0,
                teethMatte: photo.auxiliary[.teethMatte] != nil,
                portraitSeconds: reports.first?.seconds ?? 0, semanticSeconds: reports.last?.seconds ?? 0)
        }
    }

    /// The portrait matte's method as its note names it, shortened to its first
    /// clause, and what found the face ("MODNet portrait matting, CenterFace").
    static func method(of photo: Photo) -> String {
        guard let note = photo.metadata.notes["portraitMatteMethod"] else { return "none (no face)" }
        let method = String(note.prefix { $0 != ":" && $0 != "(" }).trimmingCharacters(in: .whitespaces)
        let parts = photo.metadata.notes["semanticMattesMethod"].map { ", " + String($0.prefix { $0 != "(" && $0 != ";" }).trimmingCharacters(in: .whitespaces) } ?? ""
        guard let finder = note.range(of: "face found by ") else { return method + parts }
        return method + ", " + String(note[finder.upperBound...].prefix { $0 != "(" && $0 != ";" }).trimmingCharacters(in: .whitespaces) + parts
    }

    /// LaPa classes: 1 skin, 8 inner mouth (teeth), 10 hair.
    package func lapa(directory: URL) throws -> TeethRow {
        let (photo, _) = try mattes(for: directory.appendingPathComponent("image.jpg"), runner: lapaRunner)
        let labels = try ImageDecoder.decodeAuxiliaryImage(at: directory.appendingPathComponent("label.png"))
        let classes = (0..<(labels.width * labels.height)).map { Int(labels.sample(x: $0 % labels.width, y: $0 / labels.width)) }
        let empty = QualityMetrics.Mask(repeating: false, count: classes.count)
        let mask = { (role: ImageRole) in photo.auxiliary[role].map(QualityMetrics.threshold) ?? empty }
        return TeethRow(
            method: FaceEvaluation.method(of: photo), faceFound: photo.auxiliary[.portraitMatte] != nil, teethFound: photo.auxiliary[.teethMatte] != nil,
            teethF1: QualityMetrics.f1(mask(.teethMatte), classes.map { $0 == 8 }),
            skinF1: QualityMetrics.f1(mask(.skinMatte), classes.map { $0 == 1 }),
            hairF1: QualityMetrics.f1(mask(.hairMatte), classes.map { $0 == 10 }))
    }
}
