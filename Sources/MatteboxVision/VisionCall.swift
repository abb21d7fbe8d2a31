import CVision
import MatteboxCore
import MatteboxRuntime

extension PixelImage {
    /// This image as the vision library's borrowed view, valid while the image lives.
    var visionImage: mbx_cv_image {
        mbx_cv_image(
            data: data, width: Int32(width), height: Int32(height), channels: Int32(channels),
            format: Int32(format.rawValue), stride: bytesPerRow)
    }
}

/// Turns the vision library's status and message into a thrown MatteboxError.
enum VisionCall {
    static func check(_ status: Int32, _ error: mbx_cv_error, _ what: String) throws {
        guard status != 0 else { return }
        let message = withUnsafeBytes(of: error.message) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        throw MatteboxError("\(what): \(message)")
    }
}

/// The OpenCV Mattebox was built with, for `--version`.
public enum VisionLibrary {
    public static var openCVVersion: String { String(cString: mbx_cv_version()) }
}
