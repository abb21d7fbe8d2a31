import CV4L2
import Foundation
import MatteboxCore

/// V4L2 cameras emulated in memory, behind the same seam as libv4l2: nodes
/// at paths like `/dev/video0` that answer the ioctls a capture app uses with
/// the kernel's structures and error codes, serve real frames (MJPEG, YUYV)
/// at their frame interval on CLOCK_MONOTONIC, and can be unplugged, taken by
/// another process, or made to deliver bad frames. Tests drive the real
/// capture code through it; replay cameras are built on it.
// Unchecked: every call takes the device's lock, as the kernel serialises ioctls.
package final class EmulatedV4L2: VideoDeviceIO, @unchecked Sendable {
    private struct Handle {
        var path: String
        var generation: Int
        var nonBlocking: Bool
    }

    private let condition = NSCondition()
    private var specs: [String: EmulatedCameraSpec] = [:]
    private var nodes: [String: EmulatedNode] = [:]
    /// Unplugged nodes by generation, kept while handles opened on them may still dequeue.
    private var retired: [Int: EmulatedNode] = [:]
    private var handles: [Int32: Handle] = [:]
    private var mappings: [UnsafeMutableRawPointer: EmulatedBuffer] = [:]
    private var nextDescriptor: Int32 = 10_000
    private var generations = 0
    private var busyElsewhere: Set<String> = []
    private var denied: Set<String> = []

    package init() {}

    /// Plugs a camera in at `path`.
    package func add(_ spec: EmulatedCameraSpec, at path: String) {
        locked {
            specs[path] = spec
            plugLocked(path)
        }
    }

    package var paths: [String] { locked { nodes.keys.sorted() } }

    // MARK: Faults

    /// The camera disappears: streams see POLLHUP and ENODEV, opens fail with ENOENT.
    package func unplug(_ path: String) {
        locked {
            guard let node = nodes.removeValue(forKey: path) else { return }
            node.unplug()
            retired[node.generation] = node
            condition.broadcast()
        }
    }

    /// The camera comes back (a new device: old handles stay dead).
    package func replug(_ path: String) { locked { plugLocked(path) } }

    /// Another process owns (or releases) the camera's buffer queue.
    package func setBusyInAnotherProcess(_ busy: Bool, _ path: String) {
        locked { if busy { busyElsewhere.insert(path) } else { busyElsewhere.remove(path) } }
    }

    /// Opening the node fails with EACCES (no `video` group).
    package func setAccessDenied(_ denied: Bool, _ path: String) {
        locked { if denied { self.denied.insert(path) } else { self.denied.remove(path) } }
    }

    package func inject(_ fault: EmulatedFault, _ path: String) { locked { nodes[path]?.faults.append(fault) } }

    /// The frame interval the device runs at now, as the app last set it.
    package func frameInterval(_ path: String) -> FrameInterval? { locked { nodes[path]?.interval } }

    private func plugLocked(_ path: String) {
        guard let spec = specs[path] else { return }
        generations += 1
        nodes[path] = EmulatedNode(spec: spec, generation: generations)
        condition.broadcast()
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }

    private func fail<T>(_ code: Int32, _ value: T) -> T {
        errno = code
        return value
    }

    // MARK: VideoDeviceIO

    package func open(_ path: String, flags: Int32) -> Int32 {
        locked {
            guard nodes[path] != nil else { return fail(ENOENT, -1) }
            if denied.contains(path) { return fail(EACCES, -1) }
            guard flags & O_ACCMODE == O_RDWR else { return fail(EINVAL, -1) }
            nextDescriptor += 1
            handles[nextDescriptor] = Handle(path: path, generation: nodes[path]!.generation, nonBlocking: flags & O_NONBLOCK != 0)
            return nextDescriptor
        }
    }

    package func close(_ fd: Int32) -> Int32 {
        locked {
            guard let handle = handles.removeValue(forKey: fd) else { return fail(EBADF, -1) }
            if retired[handle.generation]?.owner == fd { retired[handle.generation] = nil }
            if let node = nodes[handle.path], node.generation == handle.generation, node.owner == fd {
                node.stopStream()
                // Buffers still mapped live on until munmap; the queue is free again.
                node.buffers = []
                node.owner = nil
            }
            return 0
        }
    }

    package func mmap(_ fd: Int32, length: Int, offset: Int) -> UnsafeMutableRawPointer? {
        locked {
            guard let handle = handles[fd] else { return fail(EBADF, nil) }
            guard let node = live(handle) else { return fail(ENODEV, nil) }
            guard let buffer = node.buffers.first(where: { $0.offset == offset }), length > 0, length <= buffer.length else {
                return fail(EINVAL, nil)
            }
            buffer.mapped += 1
            mappings[buffer.memory] = buffer
            return buffer.memory
        }
    }

    package func munmap(_ address: UnsafeMutableRawPointer, length: Int) -> Int32 {
        locked {
            guard let buffer = mappings[address] else { return fail(EINVAL, -1) }
            buffer.mapped -= 1
            if buffer.mapped == 0 { mappings[address] = nil }
            return 0
        }
    }

    package func poll(_ fd: Int32, events: Int16, timeoutMilliseconds: Int32) -> (result: Int32, revents: Int16) {
        let deadline = timeoutMilliseconds < 0 ? UInt64.max : MonotonicClock.now() + UInt64(timeoutMilliseconds) * 1_000_000
        condition.lock()
        defer { condition.unlock() }
        while true {
            guard let handle = handles[fd] else { return (1, Int16(POLLNVAL)) }
            guard let node = live(handle) else { return (1, Int16(POLLERR | POLLHUP)) }
            let now = MonotonicClock.now()
            node.advance(now: now)
            if !node.done.isEmpty { return (1, Int16(POLLIN | POLLRDNORM)) }
            if !node.streaming || node.queued.isEmpty { return (1, Int16(POLLERR)) }
            if now >= deadline { return (0, 0) }
            let wake = min(deadline, node.nextFrameDue ?? deadline)
            let seconds = Double(wake > now ? wake - now : 0) / 1e9
            _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
        }
    }

    /// The node a handle refers to, unless it was unplugged since the handle was opened.
    private func live(_ handle: Handle) -> EmulatedNode? {
        guard let node = nodes[handle.path], node.generation == handle.generation, !node.gone else { return nil }
        return node
    }

    package func ioctl(_ fd: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32 {
        condition.lock()
        defer { condition.unlock() }
        guard let handle = handles[fd] else { return fail(EBADF, -1) }
        guard let node = live(handle) else {
            // Unplugged: buffers that were queued still come back, flagged ERROR.
            if request == MBX_VIDIOC_DQBUF, let stale = staleNode(handle), !stale.done.isEmpty {
                return dequeue(stale, fd: fd, handle: handle, argument)
            }
            return fail(ENODEV, -1)
        }
        let code = handleRequest(request, node: node, fd: fd, handle: handle, argument)
        condition.broadcast()
        return code == 0 ? 0 : fail(code, -1)
    }

    /// An unplugged node a handle still refers to.
    private func staleNode(_ handle: Handle) -> EmulatedNode? { retired[handle.generation] }

    private func dequeue(_ node: EmulatedNode, fd: Int32, handle: Handle, _ argument: UnsafeMutableRawPointer) -> Int32 {
        let code = dequeueBuffer(node, fd: fd, handle: handle, argument.assumingMemoryBound(to: v4l2_buffer.self))
        return code == 0 ? 0 : fail(code, -1)
    }

    /// Whether `fd` may touch the buffer queue: nobody else owns it and no other process holds it.
    private func mayUseQueue(_ node: EmulatedNode, fd: Int32, path: String) -> Bool {
        !busyElsewhere.contains(path) && (node.owner == nil || node.owner == fd)
    }

    /// One ioctl on an open node, as the kernel's V4L2 core and uvcvideo answer it: a table
    /// from request to the function that answers it (controls first, then the rest).
    private func handleRequest(
        _ request: UInt, node: EmulatedNode, fd: Int32, handle: Handle, _ argument: UnsafeMutableRawPointer
    ) -> Int32 {
        if let code = node.controls.handle(request, argument) { return code }
        switch request {
        case MBX_VIDIOC_QUERYCAP: return queryCapabilities(node, argument)
        case MBX_VIDIOC_ENUM_FMT: return enumerateFormat(node, argument)
        case MBX_VIDIOC_ENUM_FRAMESIZES: return enumerateFrameSize(node, argument)
        case MBX_VIDIOC_ENUM_FRAMEINTERVALS: return enumerateFrameInterval(node, argument)
        case MBX_VIDIOC_G_FMT: return getFormat(node, argument)
        case MBX_VIDIOC_TRY_FMT, MBX_VIDIOC_S_FMT: return tryOrSetFormat(request, node, fd: fd, handle: handle, argument)
        case MBX_VIDIOC_G_PARM, MBX_VIDIOC_S_PARM: return streamParameters(request, node, fd: fd, handle: handle, argument)
        case MBX_VIDIOC_REQBUFS: return requestBuffers(node, fd: fd, handle: handle, argument)
        case MBX_VIDIOC_QUERYBUF: return queryBuffer(node, argument)
        case MBX_VIDIOC_QBUF: return queueBuffer(node, fd: fd, handle: handle, argument)
        case MBX_VIDIOC_DQBUF: return dequeueBuffer(node, fd: fd, handle: handle, argument.assumingMemoryBound(to: v4l2_buffer.self))
        case MBX_VIDIOC_STREAMON: return streamOn(node, fd: fd, handle: handle)
        case MBX_VIDIOC_STREAMOFF: return streamOff(node, fd: fd)
        case MBX_VIDIOC_G_INPUT: return getInput(argument)
        case MBX_VIDIOC_ENUMINPUT: return enumerateInput(argument)
        default: return ENOTTY
        }
    }

    /// VIDIOC_QUERYCAP: a streaming capture device with its driver, card and bus names.
    private func queryCapabilities(_ node: EmulatedNode, _ argument: UnsafeMutableRawPointer) -> Int32 {
        let spec = node.spec
        let caps = argument.assumingMemoryBound(to: v4l2_capability.self)
        caps.pointee = v4l2_capability()
        setCString(spec.driver, into: &caps.pointee.driver)
        setCString(spec.card, into: &caps.pointee.card)
        setCString(spec.busInfo, into: &caps.pointee.bus_info)
        caps.pointee.version = 0x0006_0000
        caps.pointee.device_caps = UInt32(V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING)
        caps.pointee.capabilities = caps.pointee.device_caps | UInt32(V4L2_CAP_DEVICE_CAPS)
        return 0
    }

    /// VIDIOC_ENUM_FMT: the pixel formats, in the spec's order.
    private func enumerateFormat(_ node: EmulatedNode, _ argument: UnsafeMutableRawPointer) -> Int32 {
        let spec = node.spec
        let description = argument.assumingMemoryBound(to: v4l2_fmtdesc.self)
        let index = Int(description.pointee.index)
        guard description.pointee.type == V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue, index < spec.formats.count else { return EINVAL }
        let format = spec.formats[index]
        description.pointee.pixelformat = format.fourcc.rawValue
        description.pointee.flags = format.fourcc.isCompressed ? UInt32(V4L2_FMT_FLAG_COMPRESSED) : 0
        setCString(format.description, into: &description.pointee.description)
        return 0
    }

    /// VIDIOC_ENUM_FRAMESIZES: the discrete sizes of one format.
    private func enumerateFrameSize(_ node: EmulatedNode, _ argument: UnsafeMutableRawPointer) -> Int32 {
        let spec = node.spec
        let size = argument.assumingMemoryBound(to: v4l2_frmsizeenum.self)
        guard let format = spec.formats.first(where: { $0.fourcc.rawValue == size.pointee.pixel_format }),
            Int(size.pointee.index) < format.sizes.count
        else { return EINVAL }
        let chosen = format.sizes[Int(size.pointee.index)]
        size.pointee.type = V4L2_FRMSIZE_TYPE_DISCRETE.rawValue
        size.pointee.discrete = v4l2_frmsize_discrete(width: UInt32(chosen.width), height: UInt32(chosen.height))
        return 0
    }

    /// VIDIOC_ENUM_FRAMEINTERVALS: the discrete intervals of one format and size.
    private func enumerateFrameInterval(_ node: EmulatedNode, _ argument: UnsafeMutableRawPointer) -> Int32 {
        let spec = node.spec
        let interval = argument.assumingMemoryBound(to: v4l2_frmivalenum.self)
        let wanted = FrameSize(width: Int(interval.pointee.width), height: Int(interval.pointee.height))
        guard let format = spec.formats.first(where: { $0.fourcc.rawValue == interval.pointee.pixel_format }),
            format.sizes.contains(wanted), Int(interval.pointee.index) < format.intervals.count
        else { return EINVAL }
        let chosen = format.intervals[Int(interval.pointee.index)]
        interval.pointee.type = V4L2_FRMIVAL_TYPE_DISCRETE.rawValue
        interval.pointee.discrete = v4l2_fract(numerator: chosen.numerator, denominator: chosen.denominator)
        return 0
    }

    /// VIDIOC_G_FMT: the format in use.
    private func getFormat(_ node: EmulatedNode, _ argument: UnsafeMutableRawPointer) -> Int32 {
        let format = argument.assumingMemoryBound(to: v4l2_format.self)
        guard format.pointee.type == V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue else { return EINVAL }
        format.pointee = node.format.v4l2
        return 0
    }

    /// VIDIOC_TRY_FMT and VIDIOC_S_FMT: the nearest format the device has; setting it needs the queue and no buffers.
    private func tryOrSetFormat(_ request: UInt, _ node: EmulatedNode, fd: Int32, handle: Handle, _ argument: UnsafeMutableRawPointer) -> Int32 {
        let format = argument.assumingMemoryBound(to: v4l2_format.self)
        guard format.pointee.type == V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue else { return EINVAL }
        let pix = format.pointee.fmt.pix
        let (chosen, size) = node.nearestFormat(pix.pixelformat, width: Int(pix.width), height: Int(pix.height))
        let result = EmulatedNode.streamFormat(chosen.fourcc, size)
        if request == MBX_VIDIOC_S_FMT {
            guard mayUseQueue(node, fd: fd, path: handle.path), node.buffers.isEmpty else { return EBUSY }
            node.format = result
            node.interval = node.nearestInterval(node.interval)
        }
        format.pointee = result.v4l2
        return 0
    }

    /// VIDIOC_G_PARM and VIDIOC_S_PARM: the frame interval (uvcvideo refuses a new one while streaming).
    private func streamParameters(_ request: UInt, _ node: EmulatedNode, fd: Int32, handle: Handle, _ argument: UnsafeMutableRawPointer) -> Int32 {
        let spec = node.spec
        let parm = argument.assumingMemoryBound(to: v4l2_streamparm.self)
        guard parm.pointee.type == V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue else { return EINVAL }
        if request == MBX_VIDIOC_S_PARM {
            // uvcvideo refuses a new frame interval while streaming.
            guard mayUseQueue(node, fd: fd, path: handle.path), !node.streaming else { return EBUSY }
            let wanted = parm.pointee.parm.capture.timeperframe
            node.interval = node.nearestInterval(FrameInterval(numerator: wanted.numerator, denominator: wanted.denominator))
        }
        parm.pointee.parm.capture = v4l2_captureparm()
        parm.pointee.parm.capture.capability = UInt32(V4L2_CAP_TIMEPERFRAME)
        parm.pointee.parm.capture.timeperframe = v4l2_fract(numerator: node.interval.numerator, denominator: node.interval.denominator)
        parm.pointee.parm.capture.readbuffers = UInt32(spec.minimumBuffers)
        return 0
    }

    /// VIDIOC_REQBUFS: memory-mapped buffers, clamped to what the device allows; zero frees them and the queue.
    private func requestBuffers(_ node: EmulatedNode, fd: Int32, handle: Handle, _ argument: UnsafeMutableRawPointer) -> Int32 {
        let spec = node.spec
        let request = argument.assumingMemoryBound(to: v4l2_requestbuffers.self)
        guard request.pointee.type == V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue, request.pointee.memory == V4L2_MEMORY_MMAP.rawValue else {
            return EINVAL
        }
        guard mayUseQueue(node, fd: fd, path: handle.path), !node.streaming else { return EBUSY }
        guard node.buffers.allSatisfy({ $0.mapped == 0 }) else { return EBUSY }
        node.buffers = []
        node.queued = []
        node.done = []
        let wanted = Int(request.pointee.count)
        guard wanted > 0 else {
            node.owner = nil
            request.pointee.count = 0
            return 0
        }
        let count = min(max(wanted, spec.minimumBuffers), spec.maximumBuffers)
        let page = Int(getpagesize())
        let length = (node.format.sizeImage + page - 1) / page * page
        node.buffers = (0..<count).map { EmulatedBuffer(length: length, offset: $0 * length) }
        node.owner = fd
        request.pointee.count = UInt32(count)
        request.pointee.capabilities = UInt32(V4L2_BUF_CAP_SUPPORTS_MMAP)
        return 0
    }

    /// VIDIOC_QUERYBUF: one buffer's offset, length and state.
    private func queryBuffer(_ node: EmulatedNode, _ argument: UnsafeMutableRawPointer) -> Int32 {
        let buffer = argument.assumingMemoryBound(to: v4l2_buffer.self)
        guard buffer.pointee.type == V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue, Int(buffer.pointee.index) < node.buffers.count else {
            return EINVAL
        }
        describe(node.buffers[Int(buffer.pointee.index)], index: Int(buffer.pointee.index), into: buffer)
        return 0
    }

    /// VIDIOC_QBUF: a dequeued buffer handed back to be filled, by the queue's owner only.
    private func queueBuffer(_ node: EmulatedNode, fd: Int32, handle: Handle, _ argument: UnsafeMutableRawPointer) -> Int32 {
        let buffer = argument.assumingMemoryBound(to: v4l2_buffer.self)
        guard mayUseQueue(node, fd: fd, path: handle.path), node.owner == fd else { return EBUSY }
        let index = Int(buffer.pointee.index)
        guard buffer.pointee.type == V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue, buffer.pointee.memory == V4L2_MEMORY_MMAP.rawValue,
            index < node.buffers.count, node.buffers[index].state == .dequeued
        else { return EINVAL }
        node.buffers[index].state = .queued
        node.queued.append(index)
        describe(node.buffers[index], index: index, into: buffer)
        return 0
    }

    /// VIDIOC_STREAMON: frames start, once the owner has buffers.
    private func streamOn(_ node: EmulatedNode, fd: Int32, handle: Handle) -> Int32 {
        guard mayUseQueue(node, fd: fd, path: handle.path) else { return EBUSY }
        guard node.owner == fd, !node.buffers.isEmpty else { return EINVAL }
        if !node.streaming { node.startStream(now: MonotonicClock.now()) }
        return 0
    }

    /// VIDIOC_STREAMOFF: frames stop and the buffers come back.
    private func streamOff(_ node: EmulatedNode, fd: Int32) -> Int32 {
        guard node.owner == nil || node.owner == fd else { return EBUSY }
        node.stopStream()
        return 0
    }

    /// VIDIOC_G_INPUT: the one input.
    private func getInput(_ argument: UnsafeMutableRawPointer) -> Int32 {
        argument.assumingMemoryBound(to: Int32.self).pointee = 0
        return 0
    }

    /// VIDIOC_ENUMINPUT: one camera input.
    private func enumerateInput(_ argument: UnsafeMutableRawPointer) -> Int32 {
        let input = argument.assumingMemoryBound(to: v4l2_input.self)
        guard input.pointee.index == 0 else { return EINVAL }
        input.pointee = v4l2_input()
        setCString("Camera 1", into: &input.pointee.name)
        input.pointee.type = UInt32(V4L2_INPUT_TYPE_CAMERA)
        return 0
    }

    private func dequeueBuffer(
        _ node: EmulatedNode, fd: Int32, handle: Handle, _ buffer: UnsafeMutablePointer<v4l2_buffer>
    ) -> Int32 {
        guard node.owner == fd else { return EBUSY }
        guard buffer.pointee.type == V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue, buffer.pointee.memory == V4L2_MEMORY_MMAP.rawValue else {
            return EINVAL
        }
        if case .ioErrorOnNextDequeue? = node.faults.first {
            node.faults.removeFirst()
            return EIO
        }
        while true {
            if !node.gone {
                guard node.streaming else { return EINVAL }
                node.advance(now: MonotonicClock.now())
            }
            if !node.done.isEmpty { break }
            if node.gone { return ENODEV }
            if handle.nonBlocking { return EAGAIN }
            guard !node.queued.isEmpty else { return EINVAL }
            let wake = node.nextFrameDue ?? MonotonicClock.now() + 10_000_000
            _ = condition.wait(until: Date(timeIntervalSinceNow: Double(wake - min(wake, MonotonicClock.now())) / 1e9))
        }
        let index = node.done.removeFirst()
        node.buffers[index].state = .dequeued
        describe(node.buffers[index], index: index, into: buffer)
        return 0
    }

    private func describe(_ buffer: EmulatedBuffer, index: Int, into raw: UnsafeMutablePointer<v4l2_buffer>) {
        raw.pointee.index = UInt32(index)
        raw.pointee.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        raw.pointee.memory = V4L2_MEMORY_MMAP.rawValue
        raw.pointee.length = UInt32(buffer.length)
        raw.pointee.m.offset = UInt32(buffer.offset)
        raw.pointee.bytesused = UInt32(buffer.bytesUsed)
        raw.pointee.field = V4L2_FIELD_NONE.rawValue
        raw.pointee.sequence = buffer.sequence
        raw.pointee.timestamp = timeval(
            tv_sec: Int(buffer.timestamp / 1_000_000_000), tv_usec: Int(buffer.timestamp % 1_000_000_000 / 1000))
        var flags = buffer.flags
        if buffer.mapped > 0 { flags |= MBX_BUF_FLAG_MAPPED }
        switch buffer.state {
        case .queued: flags |= MBX_BUF_FLAG_QUEUED
        case .done: flags |= MBX_BUF_FLAG_DONE
        case .dequeued: break
        }
        raw.pointee.flags = flags
    }
}

extension EmulatedV4L2: CameraSimulation {
    package func unplug(_ camera: CameraDevice) { unplug(camera.path) }
    package func replug(_ camera: CameraDevice) { replug(camera.path) }
    package func setBusyElsewhere(_ busy: Bool, _ camera: CameraDevice) { setBusyInAnotherProcess(busy, camera.path) }
}
