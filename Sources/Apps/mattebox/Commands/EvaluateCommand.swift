import ArgumentParser
import Foundation
import MatteboxEvaluation
import MatteboxPluginHost
import MatteboxVision

/// `mattebox evaluate`: measures depth and matte quality on labelled data
/// (`make bench-quality` runs it on ../shared/eval).
struct EvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Measure stereo and matte quality against labelled data and print the tables.",
        discussion: """
            DIR is laid out as ../shared/eval: stereo/middlebury_v2/<scene>/ (imL, imR, ground truth, \
            masks), faceparsing/fasseg_frontal02/{rgb,labels}/N.bmp and faceparsing/lapa_sample/. \
            Stereo is compared with the plain SGBM reference in the same run; mattes come from the \
            installed PortraitMatte and SemanticMattes plugins. Hair is scored as each dataset labels \
            it: FASSEG counts the eyebrows as hair (the plugin is run with brows: true), LaPa does not. \
            --sky scores the sky matte against sky labels (IoU and boundary IoU per photo and mean). \
            --apple compares the mattes made anew for an iPhone photo with the ones Apple stored in it.
            """)

    @OptionGroup var verbosity: Verbosity
    @Argument(help: "Folder with the evaluation data.") var directory: String
    @Option(
        name: .customLong("stereo-scenes"),
        help: ArgumentHelp(
            "A folder of further stereo scenes, each a subfolder with a scene.json (Samples/eval/stereo-scenes.sh makes two from Debian packages); scored apart from the development scenes.",
            valueName: "DIR"))
    var stereoScenes: [String] = []
    @Option(
        name: .customLong("portrait-model"),
        help: ArgumentHelp("The portrait matte's model parameter for the face tables: auto, modnet, none (classical) or an ONNX file; default: the plugin's default.", valueName: "MODEL"))
    var portraitModel: String?
    @Option(
        help: ArgumentHelp("How the mattes' face is found: auto, centerface, haar or a CenterFace ONNX file; default: the plugins' default (auto).", valueName: "FINDER"))
    var faces: String?
    @Option(
        help: ArgumentHelp(
            "How the semantic mattes find the face's parts: auto, facemesh, none (laid out on the face's box) or a face mesh ONNX file; default: the plugin's default (auto).",
            valueName: "LANDMARKS"))
    var landmarks: String?
    @Option(
        name: .customLong("semantic-model"),
        help: ArgumentHelp(
            "The semantic mattes' model parameter for the face tables: faceparser (mattebox models install faceparser), none (the classical method) or an ONNX face parser; default: the plugin's default (auto: the face parser when installed).",
            valueName: "MODEL"))
    var semanticModel: String?
    @Option(
        help: ArgumentHelp(
            "A folder with images/NAME.* and labels/NAME.png (white = sky) to score the sky matte on (Samples/eval/sky-photos.sh makes four from opencv-doc).",
            valueName: "DIR"))
    var sky: String?
    @Option(
        help: ArgumentHelp(
            "An iPhone photo holding Apple's own mattes (repeatable): the semantic mattes made anew on Apple's portrait matte, and the portrait matte made anew, scored by IoU against Apple's.",
            valueName: "FILE"))
    var apple: [String] = []
    @Flag(help: "Print the tables as JSON.") var json = false

    func run() throws {
        let root = URL(fileURLWithPath: directory)
        let stereo = try StereoEvaluation.run(directory: root.appendingPathComponent("stereo/middlebury_v2"))
        let heldOut = try stereoScenes.flatMap { folder -> [StereoEvaluation.Row] in
            let rows = try StereoEvaluation.run(directory: URL(fileURLWithPath: folder))
            guard !rows.isEmpty else { throw ValidationError("\(folder): no stereo scenes (subfolders with a scene.json) found") }
            return rows
        }
        let faces = try FaceEvaluation(registry: PluginRegistry.discoverForThisExecutable(), portraitModel: portraitModel, faces: faces, landmarks: landmarks, semanticModel: semanticModel)
        let fassegFolder = root.appendingPathComponent("faceparsing/fasseg_frontal02")
        let fasseg = FileManager.default.fileExists(atPath: fassegFolder.path) ? try faces.fasseg(directory: fassegFolder) : []
        let lapaFolder = root.appendingPathComponent("faceparsing/lapa_sample")
        let lapa = FileManager.default.fileExists(atPath: lapaFolder.path) ? try faces.lapa(directory: lapaFolder) : nil
        let skies = try sky.map { try SkyEvaluation(registry: PluginRegistry.discoverForThisExecutable()).run(directory: URL(fileURLWithPath: $0)) } ?? []
        var appleRows: [AppleMatteEvaluation.Row] = []
        if !apple.isEmpty {
            let evaluation = try AppleMatteEvaluation(registry: PluginRegistry.discoverForThisExecutable())
            appleRows = try apple.flatMap { try evaluation.run(file: URL(fileURLWithPath: $0)) }
        }
        guard !stereo.isEmpty || !heldOut.isEmpty || !fasseg.isEmpty || lapa != nil || !skies.isEmpty || !appleRows.isEmpty else {
            throw ValidationError("\(directory): no evaluation data found (see --help for the layout)")
        }
        if json {
            try JSONOutput.print(EvaluationReport(stereo: stereo, stereoHeldOut: heldOut, faces: fasseg, teeth: lapa, sky: skies, apple: appleRows))
        } else {
            print(EvaluationTables.text(stereo: stereo, stereoHeldOut: heldOut, faces: fasseg, teeth: lapa, sky: skies, apple: appleRows))
        }
    }
}

struct EvaluationReport: Encodable {
    var stereo: [StereoEvaluation.Row]
    var stereoHeldOut: [StereoEvaluation.Row]
    var faces: [FaceEvaluation.FacesRow]
    var teeth: FaceEvaluation.TeethRow?
    var sky: [SkyEvaluation.Row]
    var apple: [AppleMatteEvaluation.Row]
}

/// The evaluation as Markdown tables, averages last.
enum EvaluationTables {
    static func text(
        stereo: [StereoEvaluation.Row], stereoHeldOut: [StereoEvaluation.Row] = [], faces: [FaceEvaluation.FacesRow], teeth: FaceEvaluation.TeethRow?,
        sky: [SkyEvaluation.Row] = [], apple: [AppleMatteEvaluation.Row] = []
    ) -> String {
        var lines: [String] = []
        func f(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }
        func mean(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count) }
        for (title, rows) in [("development scenes", stereo), ("scenes not tuned on", stereoHeldOut)] where !rows.isEmpty {
            lines += ["Stereo, \(title) (bad-δ in %, avgerr in px; every pixel filled)", "",
                      "| scene | scored | Mattebox bad-1 | bad-2 | avgerr | SGBM bad-1 | bad-2 | avgerr | matched before filling | s/MP Mattebox | s/MP SGBM |",
                      "|---|---|---|---|---|---|---|---|---|---|---|"]
            for row in rows {
                lines.append("| \(row.scene) | \(row.scored) | \(f(row.mattebox.bad1)) | \(f(row.mattebox.bad2)) | \(f(row.mattebox.averageError)) | \(f(row.baseline.bad1)) | \(f(row.baseline.bad2)) | \(f(row.baseline.averageError)) | \(f(row.matchedBeforeFilling * 100, 1))% | \(f(row.matteboxSecondsPerMegapixel, 3)) | \(f(row.baselineSecondsPerMegapixel, 3)) |")
            }
            let ours = mean(rows.map(\.mattebox.bad2)), reference = mean(rows.map(\.baseline.bad2))
            let time = mean(rows.map(\.matteboxSecondsPerMegapixel)) / max(1e-9, mean(rows.map(\.baselineSecondsPerMegapixel)))
            lines += ["", "Mean bad-2: Mattebox \(f(ours)), SGBM \(f(reference)) (\(f(100 * (1 - ours / max(reference, 1e-9)), 1))% lower); time per megapixel \(f(time))x SGBM's", ""]
        }
        if !faces.isEmpty {
            lines += ["Faces (FASSEG frontal02; F1 and IoU at matte ≥ 0.5; hair includes eyebrows, as FASSEG labels it)", "",
                      "| face | method | found | skin F1 | skin F1, nose as skin | hair F1 | head IoU | head boundary IoU | soft hair edge | teeth matte (closed mouth) | failure | portrait s | semantic s |",
                      "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
            for row in faces {
                lines.append("| \(row.face) | \(row.method) | \(row.faceFound ? "yes" : "no") | \(f(row.skinF1, 3)) | \(f(row.skinF1NoseAsSkin, 3)) | \(f(row.hairF1, 3)) | \(f(row.headIoU, 3)) | \(f(row.headBoundaryIoU, 3)) | \(f(row.hairSoftEdge * 100, 0))% | \(row.teethMatte ? "yes" : "no") | \(row.failures.isEmpty ? "—" : row.failures.joined(separator: ", ")) | \(f(row.portraitSeconds, 2)) | \(f(row.semanticSeconds, 2)) |")
            }
            lines += ["", "Mean: skin F1 \(f(mean(faces.map(\.skinF1)), 3)) (\(f(mean(faces.map(\.skinF1NoseAsSkin)), 3)) with the nose counted as skin, as Apple's skin matte covers it; FASSEG labels it apart), hair F1 \(f(mean(faces.map(\.hairF1)), 3)), head IoU \(f(mean(faces.map(\.headIoU)), 3)), head boundary IoU \(f(mean(faces.map(\.headBoundaryIoU)), 3)); teeth mattes on closed mouths: \(faces.filter(\.teethMatte).count); failures (a face found and its hair or skin matte empty or under 0.3 F1): \(faces.filter { !$0.failures.isEmpty }.count) of \(faces.count)", ""]
        }
        if let teeth {
            lines += ["Teeth (LaPa sample, inner mouth; portrait matte by \(teeth.method)): found \(teeth.teethFound ? "yes" : "no"), F1 \(f(teeth.teethF1, 3)); skin F1 \(f(teeth.skinF1, 3)), hair F1 \(f(teeth.hairF1, 3))"]
        }
        if !sky.isEmpty {
            if !lines.isEmpty { lines.append("") }
            lines += ["Sky (IoU at matte ≥ 0.5; boundary IoU within 3 px of the labelled edge)", "",
                      "| photo | found | IoU | boundary IoU | semantic s |", "|---|---|---|---|---|"]
            for row in sky {
                lines.append("| \(row.photo) | \(row.found ? "yes" : "no") | \(f(row.iou, 3)) | \(f(row.boundaryIoU, 3)) | \(f(row.seconds, 2)) |")
            }
            lines += ["", "Mean sky IoU \(f(mean(sky.map(\.iou)), 3)), boundary IoU \(f(mean(sky.map(\.boundaryIoU)), 3))"]
        }
        if !apple.isEmpty {
            if !lines.isEmpty { lines.append("") }
            lines += ["Against Apple's own mattes (ours made anew with Apple's taken out: the semantic mattes on Apple's portrait matte, the portrait matte apart; IoU at matte ≥ 0.5)", "",
                      "| photo | matte | made | IoU | Apple's covers | ours covers |", "|---|---|---|---|---|---|"]
            for row in apple {
                lines.append("| \(row.photo) | \(row.matte) | \(row.made) | \(row.iou.map { f($0, 3) } ?? "—") | \(f(row.appleShare * 100, 1))% | \(f(row.oursShare * 100, 1))% |")
            }
        }
        return lines.joined(separator: "\n")
    }
}
