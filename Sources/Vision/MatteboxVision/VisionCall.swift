import CVisionAPI
import CVisionLoader
import Foundation
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

/// libMatteboxCVision.so, OpenCV behind the vision C API, loaded on first
/// use so commands that need no OpenCV (most of them, and every batch
/// worker) start without its hundred-odd libraries. It is looked for beside
/// the executable (a build folder) and in `lib/mattebox` of an installation.
package enum VisionLibrary {
    package static let fileName = "libMatteboxCVision.so"

    /// Loads the library once; throws naming every place tried.
    package static func load() throws {
        let folder = URL(fileURLWithPath: HostExecutable.path).resolvingSymlinksInPath().deletingLastPathComponent()
        let candidates = [
            folder.appendingPathComponent(fileName).path,
            folder.deletingLastPathComponent().appendingPathComponent("lib/mattebox/\(fileName)").path,
        ]
        var message = [CChar](repeating: 0, count: 2048)
        let status = withArrayOfCStrings(candidates) { mbx_cvl_load($0, Int32(candidates.count), &message, Int32(message.count)) }
        guard status == 0 else {
            throw MatteboxError(
                String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
                hint: "reinstall Mattebox (make install puts it in lib/mattebox)")
        }
    }

    /// The OpenCV the library was built with, for `--version`.
    package static var openCVVersion: String {
        (try? load()).map { String(cString: mbx_cvl_version()) } ?? "not loadable"
    }

    private static func withArrayOfCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = strings.map { UnsafePointer(strdup($0)) }
        defer { copies.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
        return copies.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
