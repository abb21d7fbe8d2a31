import Foundation
import MatteboxCore
import MatteboxPipeline
import MatteboxPluginHost
import MatteboxTestSupport

/// Where the evaluation data and OpenCV's sample chessboards are, when present.
enum BuiltVisionPlugins {
    static var eval: URL? { TestEnvironment.shared?.appendingPathComponent("eval") }
    static let noEval = "../shared/eval is not beside this clone; quality tests skipped"

    /// The user's models folder, where `mattebox models install` puts them (CI's `make models`).
    static var models: URL {
        let environment = ProcessInfo.processInfo.environment
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? environment["HOME"].map { "\($0)/.local/share" } ?? ""
        return URL(fileURLWithPath: "\(data)/mattebox/models")
    }

    static var modnetInstalled: Bool {
        FileManager.default.fileExists(atPath: models.appendingPathComponent("modnet/modnet-512.onnx").path)
    }

    static var centerfaceFolder: URL? {
        let folder = models.appendingPathComponent("centerface")
        return FileManager.default.fileExists(atPath: folder.appendingPathComponent("centerface-320.onnx").path) ? folder : nil
    }
    static var centerfaceInstalled: Bool { centerfaceFolder != nil }

    static var facemeshInstalled: Bool {
        FileManager.default.fileExists(atPath: models.appendingPathComponent("facemesh/face-landmark-192.onnx").path)
    }

    static var poseInstalled: Bool {
        FileManager.default.fileExists(atPath: models.appendingPathComponent("pose/pose-landmark-full-256.onnx").path)
    }

    static var faceparserInstalled: Bool {
        FileManager.default.fileExists(atPath: models.appendingPathComponent("faceparser/face-parser-512.onnx").path)
    }

    static let chessboards = URL(fileURLWithPath: "/usr/share/doc/opencv-doc/examples/data")
    static var hasChessboards: Bool {
        FileManager.default.fileExists(atPath: chessboards.appendingPathComponent("left01.jpg").path)
    }
}
