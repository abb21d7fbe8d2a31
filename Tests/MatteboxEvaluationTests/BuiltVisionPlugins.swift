import Foundation
import MatteboxCore
import MatteboxPipeline
import MatteboxPluginHost
import MatteboxTestSupport

/// Where the evaluation data and OpenCV's sample chessboards are, when present.
enum BuiltVisionPlugins {
    static var eval: URL? { TestEnvironment.shared?.appendingPathComponent("eval") }
    static let noEval = "../shared/eval is not beside this clone; quality tests skipped"

    static let chessboards = URL(fileURLWithPath: "/usr/share/doc/opencv-doc/examples/data")
    static var hasChessboards: Bool {
        FileManager.default.fileExists(atPath: chessboards.appendingPathComponent("left01.jpg").path)
    }
}
