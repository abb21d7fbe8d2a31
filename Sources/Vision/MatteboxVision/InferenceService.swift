import CVisionAPI
import CVisionLoader
import Foundation
import MatteboxRuntime

/// The inference process of a batch (`mattebox inference-server`): it holds
/// each network once for every worker, so a batch's memory grows with the
/// photos in flight, not with the workers times the networks. The workers'
/// vision code sends it the small model inputs through a Unix socket
/// (MATTEBOX_INFERENCE_SOCKET) and gets the outputs back.
package enum InferenceService {
    /// Listens on `socketPath` (replacing a stale socket file there) and,
    /// once the first worker connects, loads the vision library and serves
    /// until the process is ended (or its parent, the batch, ends); so a
    /// batch whose stages need no network never loads OpenCV here.
    package static func serve(socketPath: String) throws -> Never {
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw MatteboxError("cannot open a socket: \(SystemError.describe(errno))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard socketPath.utf8.count < capacity else { throw MatteboxError("\(socketPath): too long for a Unix socket path") }
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            bytes.copyBytes(from: socketPath.utf8)
        }
        unlink(socketPath)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(listener, 64) == 0 else {
            throw MatteboxError("\(socketPath): cannot listen: \(SystemError.describe(errno))")
        }
        // Until the first worker connects, the parent is looked at every
        // second: a batch that was killed leaves no inference process behind.
        let parent = getppid()
        var waiting = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        while poll(&waiting, 1, 1000) <= 0 {
            if getppid() != parent { exit(0) }
        }
        try VisionLibrary.load()
        var error = mbx_cv_error()
        _ = mbx_cvl_serve_inference(listener, &error)
        try VisionCall.check(1, error, "the inference process")
        fatalError("unreachable")
    }

    /// How many networks the inference process at `socketPath` holds.
    package static func networkCount(socketPath: String) throws -> Int {
        try VisionLibrary.load()
        var count: Int32 = 0
        var error = mbx_cv_error()
        try VisionCall.check(mbx_cvl_inference_network_count(socketPath, &count, &error), error, "asking the inference process")
        return Int(count)
    }
}
