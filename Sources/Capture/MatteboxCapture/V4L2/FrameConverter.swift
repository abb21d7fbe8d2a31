import CV4L2
import Foundation
import MatteboxCore
import MatteboxRuntime
import Synchronization

/// Turns camera frames (MJPEG, YUYV, whatever libv4lconvert knows) into RGB
/// images with libv4lconvert, which asks the device about its formats through
/// the same seam as everything else. One conversion at a time (libv4lconvert
/// is not thread-safe), so callers on several threads share it safely.
package final class FrameConverter: Sendable {
    private final class Route {
        let io: VideoDeviceIO
        init(io: VideoDeviceIO) { self.io = io }
    }

    /// libv4lconvert's state and the route its ioctls take, reached only under the lock.
    private struct Handles {
        let converter: OpaquePointer
        let route: Unmanaged<Route>
    }

    private let handles: Mutex<Handles>
    private let device: String

    package init(device: V4L2Device) throws {
        self.device = device.path
        let route = Unmanaged.passRetained(Route(io: device.io))
        let forward: mbx_ioctl_fn = { context, fd, request, argument in
            let route = Unmanaged<Route>.fromOpaque(context!).takeUnretainedValue()
            return route.io.ioctl(fd, UInt(request), argument!)
        }
        guard let made = mbx_converter_create(device.fd, route.toOpaque(), forward) else {
            route.release()
            throw MatteboxError("\(device.path): libv4lconvert could not be set up")
        }
        handles = Mutex(Handles(converter: made, route: route))
    }

    deinit {
        handles.withLock { handles in
            mbx_converter_destroy(handles.converter)
            handles.route.release()
        }
    }

    /// The frame as an 8-bit RGB image; fails naming the device for a frame that will not decode.
    package func rgbImage(of frame: CapturedFrame) throws -> PixelImage {
        if let defect = frame.defect { throw MatteboxError("\(device): frame \(frame.sequence): \(defect)") }
        let image = PixelImage(width: frame.format.width, height: frame.format.height, channels: 3, format: .uint8)
        var format = frame.format.v4l2
        var message = [CChar](repeating: 0, count: 256)
        let written = handles.withLock { handles in
            frame.bytes.withUnsafeBufferPointer { source in
                mbx_converter_to_rgb24(
                    handles.converter, &format, source.baseAddress, source.count,
                    image.data.assumingMemoryBound(to: UInt8.self), image.byteCount, &message, message.count)
            }
        }
        guard written == image.byteCount else {
            let reason = written < 0 ? String(cString: message) : "short conversion (\(written) bytes)"
            throw MatteboxError("\(device): frame \(frame.sequence) (\(frame.format.fourcc)) did not convert: \(reason)")
        }
        return image
    }
}
