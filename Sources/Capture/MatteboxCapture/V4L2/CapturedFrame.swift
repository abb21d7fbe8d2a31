import Foundation

/// One frame copied out of a driver buffer, owned by the app (a driver buffer
/// goes straight back to the queue): the bytes as the camera sent them, the
/// format, the driver's sequence number and its CLOCK_MONOTONIC timestamp.
package struct CapturedFrame: Sendable {
    package var bytes: [UInt8]
    package var format: StreamFormat
    package var sequence: UInt32
    /// Nanoseconds on CLOCK_MONOTONIC (start of exposure where the driver says so).
    package var timestamp: UInt64
    /// The driver flagged the buffer (V4L2_BUF_FLAG_ERROR): its data may be corrupt.
    package var driverError: Bool

    package init(bytes: [UInt8], format: StreamFormat, sequence: UInt32, timestamp: UInt64, driverError: Bool = false) {
        self.bytes = bytes
        self.format = format
        self.sequence = sequence
        self.timestamp = timestamp
        self.driverError = driverError
    }

    /// Why the frame cannot be used, or nil when it can: a flagged buffer, an
    /// empty or short payload, or an MJPEG frame that is not a whole JPEG
    /// (libv4lconvert decodes a truncated JPEG "successfully", so check here).
    package var defect: String? {
        if driverError { return "the driver flagged the buffer as corrupt" }
        if bytes.isEmpty { return "empty frame" }
        if format.fourcc.isCompressed {
            guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return "MJPEG frame without a JPEG start marker" }
            // Some cameras pad after the end marker; look for it near the end.
            let tail = bytes.suffix(64)
            let hasEnd = zip(tail, tail.dropFirst()).contains { $0 == 0xFF && $1 == 0xD9 }
            return hasEnd ? nil : "MJPEG frame truncated (no end marker)"
        }
        return bytes.count < format.bytesPerLine * format.height ? "frame shorter than its format" : nil
    }
}
