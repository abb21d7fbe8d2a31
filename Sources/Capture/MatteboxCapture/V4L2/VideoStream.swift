import CV4L2
import Foundation

/// A running mmap stream on one device: buffers requested, mapped and queued,
/// STREAMON; frames are copied out and their buffers re-queued at once; `stop`
/// tears it all down in the order the spec asks (STREAMOFF, munmap, REQBUFS 0).
// Unchecked: used by the one stream thread that owns it (and by the session once that thread ended).
package final class VideoStream: @unchecked Sendable {
    package let device: V4L2Device
    package let format: StreamFormat
    private var mappings: [(address: UnsafeMutableRawPointer, length: Int)] = []
    private var running = false

    package init(device: V4L2Device, bufferCount: Int = 4) throws(V4L2Error) {
        self.device = device
        format = try device.format()
        do throws(V4L2Error) {
            let granted = try device.requestBuffers(bufferCount)
            guard granted > 0 else { throw V4L2Error("VIDIOC_REQBUFS", device: device.path, code: ENOMEM) }
            for index in 0..<granted {
                let (offset, length) = try device.queryBuffer(index)
                guard let address = device.io.mmap(device.fd, length: length, offset: offset) else {
                    throw V4L2Error("mmap", device: device.path, code: errno)
                }
                mappings.append((address, length))
            }
            for index in mappings.indices { try device.queueBuffer(index) }
            try device.streamOn()
            running = true
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// The next frame, or nil when none came within the timeout. Throws when
    /// the device is gone (POLLHUP, ENODEV) or the queue failed (EIO).
    package func nextFrame(timeoutMilliseconds: Int32) throws(V4L2Error) -> CapturedFrame? {
        switch device.waitForFrame(timeoutMilliseconds: timeoutMilliseconds) {
        case .timedOut: return nil
        case .hungUp: throw V4L2Error("poll", device: device.path, code: ENODEV)
        case .error(let code): throw V4L2Error("poll", device: device.path, code: code)
        case .frameReady: break
        }
        guard let buffer = try device.dequeueBuffer() else { return nil }
        let index = Int(buffer.index)
        guard mappings.indices.contains(index) else { throw V4L2Error("VIDIOC_DQBUF", device: device.path, code: EINVAL) }
        let used = min(Int(buffer.bytesused), mappings[index].length)
        let bytes = [UInt8](UnsafeRawBufferPointer(start: mappings[index].address, count: used))
        let timestamp = UInt64(buffer.timestamp.tv_sec) * 1_000_000_000 + UInt64(buffer.timestamp.tv_usec) * 1000
        let frame = CapturedFrame(
            bytes: bytes, format: format, sequence: buffer.sequence, timestamp: timestamp,
            driverError: buffer.flags & MBX_BUF_FLAG_ERROR != 0)
        try device.queueBuffer(index)
        return frame
    }

    /// Stops streaming and frees the buffers; safe to call twice and on a gone device.
    package func stop() {
        if running { try? device.streamOff() }
        running = false
        for mapping in mappings { _ = device.io.munmap(mapping.address, length: mapping.length) }
        if !mappings.isEmpty { _ = try? device.requestBuffers(0) }
        mappings = []
    }
}
