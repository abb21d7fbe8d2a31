import Foundation

/// A failed V4L2 call on one device: which call, which device, the errno, and
/// what it means for the capture (in use elsewhere, unplugged, no permission).
package struct V4L2Error: Error, CustomStringConvertible, Sendable, Equatable {
    package var operation: String
    package var device: String
    package var code: Int32

    package init(_ operation: String, device: String, code: Int32) {
        self.operation = operation
        self.device = device
        self.code = code
    }

    /// Another process owns the camera's buffer queue.
    package var isBusy: Bool { code == EBUSY }
    /// The device is gone (unplugged) or was never there.
    package var isGone: Bool { code == ENODEV || code == ENOENT || code == ENXIO }
    package var isPermissionDenied: Bool { code == EACCES || code == EPERM }

    package var description: String {
        let reason = String(cString: strerror(code))
        switch code {
        case EBUSY:
            return "\(device): \(operation) failed: \(reason); the camera is in use by another client"
        case ENODEV, ENXIO:
            return "\(device): \(operation) failed: \(reason); the camera is not available (unplugged?)"
        case ENOENT:
            return "\(device): no such device; run `mattebox devices` to list cameras"
        case EACCES, EPERM:
            return "\(device): \(operation) failed: \(reason); add your user to the `video` group "
                + "(sudo usermod -aG video $USER) and log in again"
        default:
            return "\(device): \(operation) failed: \(reason) (errno \(code))"
        }
    }
}
