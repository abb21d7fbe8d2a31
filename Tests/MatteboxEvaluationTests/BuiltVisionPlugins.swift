import Foundation
import MatteboxCore
import MatteboxPipeline
import MatteboxPluginHost
import MatteboxTestSupport

/// Where the evaluation data and OpenCV's sample chessboards are, when present.
enum BuiltVisionPlugins {
    static var eval: URL? { TestEnvironment.shared?.appendingPathComponent("eval") }
    static let noEval = "../shared/eval is not beside this clone; quality tests skipped"

    /// MODNet installed for this user by `mattebox models install modnet` (CI's `make models`).
    static var modnetInstalled: Bool {
        let environment = ProcessInfo.processInfo.environment
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? environment["HOME"].map { "\($0)/.local/share" } ?? ""
        return FileManager.default.fileExists(atPath: "\(data)/mattebox/models/modnet/modnet-512.onnx")
    }

    static let chessboards = URL(fileURLWithPath: "/usr/share/doc/opencv-doc/examples/data")
    static var hasChessboards: Bool {
        FileManager.default.fileExists(atPath: chessboards.appendingPathComponent("left01.jpg").path)
    }
}
