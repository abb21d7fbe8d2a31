import CV4L2
import Foundation

/// One open V4L2 capture node, spoken to through typed calls (QUERYCAP, the
/// enumerations, formats, frame intervals, controls, the mmap buffer queue)
/// that turn every -1/errno into a `V4L2Error` naming the device. Not for use
/// from two threads at once.
// Unchecked: a file descriptor used by the one stream thread that owns it (and by the session once that thread ended).
package final class V4L2Device: @unchecked Sendable {
    package let path: String
    package let io: VideoDeviceIO
    package let fd: Int32
    private var isOpen = true

    /// Opens read-write and non-blocking, as the V4L2 spec asks of capture apps.
    package init(path: String, io: VideoDeviceIO) throws(V4L2Error) {
        self.path = path
        self.io = io
        let fd = io.open(path, flags: O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw V4L2Error("open", device: path, code: errno) }
        self.fd = fd
    }

    deinit { close() }

    package func close() {
        guard isOpen else { return }
        isOpen = false
        _ = io.close(fd)
    }

    /// One ioctl, retried on EINTR.
    package func call<T>(_ name: String, _ request: UInt, _ argument: inout T) throws(V4L2Error) {
        var result: Int32
        var code: Int32 = 0
        repeat {
            result = withUnsafeMutableBytes(of: &argument) { io.ioctl(fd, request, $0.baseAddress!) }
            code = errno
        } while result < 0 && code == EINTR
        if result < 0 { throw V4L2Error(name, device: path, code: code) }
    }

    /// Like `call`, but the end of an enumeration (EINVAL) is nil, not an error.
    private func enumerate<T>(_ name: String, _ request: UInt, _ argument: inout T) throws(V4L2Error) -> Bool {
        do { try call(name, request, &argument) } catch where error.code == EINVAL { return false }
        return true
    }

    package func capability() throws(V4L2Error) -> DeviceCapability {
        var caps = v4l2_capability()
        try call("VIDIOC_QUERYCAP", MBX_VIDIOC_QUERYCAP, &caps)
        let own = caps.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? caps.device_caps : caps.capabilities
        return DeviceCapability(
            driver: cString(caps.driver), card: cString(caps.card), busInfo: cString(caps.bus_info), capabilities: own)
    }

    package func formats() throws(V4L2Error) -> [FormatDescription] {
        var result: [FormatDescription] = []
        for index in 0..<64 {
            var description = v4l2_fmtdesc()
            description.index = UInt32(index)
            description.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            guard try enumerate("VIDIOC_ENUM_FMT", MBX_VIDIOC_ENUM_FMT, &description) else { break }
            result.append(FormatDescription(
                fourcc: FourCC(description.pixelformat), description: cString(description.description),
                compressed: description.flags & UInt32(V4L2_FMT_FLAG_COMPRESSED) != 0))
        }
        return result
    }

    package func frameSizes(for fourcc: FourCC) throws(V4L2Error) -> [FrameSize] {
        var sizes: [FrameSize] = []
        for index in 0..<64 {
            var size = v4l2_frmsizeenum()
            size.index = UInt32(index)
            size.pixel_format = fourcc.rawValue
            guard try enumerate("VIDIOC_ENUM_FRAMESIZES", MBX_VIDIOC_ENUM_FRAMESIZES, &size) else { break }
            if size.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                sizes.append(FrameSize(width: Int(size.discrete.width), height: Int(size.discrete.height)))
            } else {
                let range = size.stepwise
                sizes.append(FrameSize(width: Int(range.min_width), height: Int(range.min_height)))
                sizes.append(FrameSize(width: Int(range.max_width), height: Int(range.max_height)))
                break
            }
        }
        return sizes
    }

    package func frameIntervals(for fourcc: FourCC, size: FrameSize) throws(V4L2Error) -> [FrameInterval] {
        var intervals: [FrameInterval] = []
        for index in 0..<64 {
            var interval = v4l2_frmivalenum()
            interval.index = UInt32(index)
            interval.pixel_format = fourcc.rawValue
            interval.width = UInt32(size.width)
            interval.height = UInt32(size.height)
            guard try enumerate("VIDIOC_ENUM_FRAMEINTERVALS", MBX_VIDIOC_ENUM_FRAMEINTERVALS, &interval) else { break }
            if interval.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue {
                intervals.append(FrameInterval(numerator: interval.discrete.numerator, denominator: interval.discrete.denominator))
            } else {
                let range = interval.stepwise
                intervals.append(FrameInterval(numerator: range.min.numerator, denominator: range.min.denominator))
                intervals.append(FrameInterval(numerator: range.max.numerator, denominator: range.max.denominator))
                break
            }
        }
        return intervals
    }

    package func format() throws(V4L2Error) -> StreamFormat {
        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        try call("VIDIOC_G_FMT", MBX_VIDIOC_G_FMT, &format)
        return StreamFormat(format)
    }

    /// Sets the format; the driver may adjust it, so the result is what it chose.
    package func setFormat(_ fourcc: FourCC, size: FrameSize) throws(V4L2Error) -> StreamFormat {
        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        format.fmt.pix.pixelformat = fourcc.rawValue
        format.fmt.pix.width = UInt32(size.width)
        format.fmt.pix.height = UInt32(size.height)
        format.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        try call("VIDIOC_S_FMT", MBX_VIDIOC_S_FMT, &format)
        return StreamFormat(format)
    }

    /// The frame interval, or nil when the device has no frame-rate control.
    package func frameInterval() throws(V4L2Error) -> FrameInterval? {
        var parm = v4l2_streamparm()
        parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        try call("VIDIOC_G_PARM", MBX_VIDIOC_G_PARM, &parm)
        guard parm.parm.capture.capability & UInt32(V4L2_CAP_TIMEPERFRAME) != 0 else { return nil }
        let frame = parm.parm.capture.timeperframe
        return FrameInterval(numerator: frame.numerator, denominator: frame.denominator)
    }

    /// Asks for a frame interval (EBUSY while streaming on most drivers); returns the one set.
    package func setFrameInterval(_ interval: FrameInterval) throws(V4L2Error) -> FrameInterval {
        var parm = v4l2_streamparm()
        parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        parm.parm.capture.timeperframe = v4l2_fract(numerator: interval.numerator, denominator: interval.denominator)
        try call("VIDIOC_S_PARM", MBX_VIDIOC_S_PARM, &parm)
        let frame = parm.parm.capture.timeperframe
        return FrameInterval(numerator: frame.numerator, denominator: frame.denominator)
    }

    /// A control's current value, or nil when the device does not have it.
    package func control(_ id: UInt32) -> Int32? {
        var control = v4l2_control(id: id, value: 0)
        do { try call("VIDIOC_G_CTRL", MBX_VIDIOC_G_CTRL, &control) } catch { return nil }
        return control.value
    }

    // MARK: The mmap buffer queue

    /// REQBUFS: the count the driver granted (0 frees the buffers).
    package func requestBuffers(_ count: Int) throws(V4L2Error) -> Int {
        var request = v4l2_requestbuffers()
        request.count = UInt32(count)
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        try call("VIDIOC_REQBUFS", MBX_VIDIOC_REQBUFS, &request)
        return Int(request.count)
    }

    package func queryBuffer(_ index: Int) throws(V4L2Error) -> (offset: Int, length: Int) {
        var buffer = Self.buffer(index: index)
        try call("VIDIOC_QUERYBUF", MBX_VIDIOC_QUERYBUF, &buffer)
        return (Int(buffer.m.offset), Int(buffer.length))
    }

    package func queueBuffer(_ index: Int) throws(V4L2Error) {
        var buffer = Self.buffer(index: index)
        try call("VIDIOC_QBUF", MBX_VIDIOC_QBUF, &buffer)
    }

    /// The next filled buffer, or nil when none is ready (EAGAIN).
    package func dequeueBuffer() throws(V4L2Error) -> v4l2_buffer? {
        var buffer = Self.buffer(index: 0)
        do { try call("VIDIOC_DQBUF", MBX_VIDIOC_DQBUF, &buffer) } catch where error.code == EAGAIN { return nil }
        return buffer
    }

    package func streamOn() throws(V4L2Error) {
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        try call("VIDIOC_STREAMON", MBX_VIDIOC_STREAMON, &type)
    }

    package func streamOff() throws(V4L2Error) {
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        try call("VIDIOC_STREAMOFF", MBX_VIDIOC_STREAMOFF, &type)
    }

    /// What poll says about the node: a frame is ready, the device is gone, or neither yet.
    package enum Readiness: Sendable { case frameReady, timedOut, hungUp, error(Int32) }

    package func waitForFrame(timeoutMilliseconds: Int32) -> Readiness {
        let (result, revents) = io.poll(fd, events: Int16(POLLIN), timeoutMilliseconds: timeoutMilliseconds)
        if result < 0 { return .error(errno) }
        if result == 0 { return .timedOut }
        if revents & Int16(POLLHUP) != 0 { return .hungUp }
        if revents & Int16(POLLIN) != 0 { return .frameReady }
        return .error(EIO)
    }

    private static func buffer(index: Int) -> v4l2_buffer {
        var buffer = v4l2_buffer()
        buffer.index = UInt32(index)
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        return buffer
    }
}
