import CV4L2
import Foundation
import MatteboxCore

/// One driver-owned buffer of an emulated camera: real page-aligned memory
/// at a unique mmap offset, kept alive while the app still has it mapped.
final class EmulatedBuffer {
    enum State { case dequeued, queued, done }

    let memory: UnsafeMutableRawPointer
    let length: Int
    let offset: Int
    var state = State.dequeued
    var mapped = 0
    var bytesUsed = 0
    var flags: UInt32 = 0
    var sequence: UInt32 = 0
    var timestamp: UInt64 = 0

    init(length: Int, offset: Int) {
        self.length = length
        self.offset = offset
        memory = UnsafeMutableRawPointer.allocate(byteCount: length, alignment: Int(getpagesize()))
    }

    deinit { memory.deallocate() }
}

/// The state of one emulated camera node, following the kernel's rules
/// (vb2 and uvcvideo): one handle owns the buffer queue and others get EBUSY;
/// S_FMT is refused while buffers exist and S_PARM while streaming; frames
/// complete into queued buffers at the frame interval, and a frame that finds
/// no queued buffer is lost (the sequence jumps); after unplug, queued buffers
/// come back flagged ERROR, then every call fails with ENODEV. All access is
/// under the owning `EmulatedV4L2`'s lock.
final class EmulatedNode {
    let spec: EmulatedCameraSpec
    let generation: Int
    var gone = false
    var format: StreamFormat
    var interval: FrameInterval
    var owner: Int32?
    var buffers: [EmulatedBuffer] = []
    var queued: [Int] = []
    var done: [Int] = []
    var streaming = false
    private var streamStart: UInt64 = 0
    private var nextFrame = 0
    var faults: [EmulatedFault] = []
    /// Picture controls (and their effect on frames), orientation and rotation, region of interest.
    lazy var controls = EmulatedControls(spec: spec, frameSize: { [unowned self] in self.format.size })

    init(spec: EmulatedCameraSpec, generation: Int) {
        self.spec = spec
        self.generation = generation
        let first = spec.formats[0]
        format = Self.streamFormat(first.fourcc, first.sizes[0])
        interval = first.intervals.first ?? FrameInterval(numerator: 1, denominator: 30)
    }

    static func streamFormat(_ fourcc: FourCC, _ size: FrameSize) -> StreamFormat {
        var raw = v4l2_format()
        raw.fmt.pix.pixelformat = fourcc.rawValue
        raw.fmt.pix.width = UInt32(size.width)
        raw.fmt.pix.height = UInt32(size.height)
        if fourcc.isCompressed {
            raw.fmt.pix.bytesperline = 0
            raw.fmt.pix.sizeimage = UInt32(size.pixels * 2 + 65536)
        } else {
            raw.fmt.pix.bytesperline = UInt32(size.width * 2)
            raw.fmt.pix.sizeimage = UInt32(size.pixels * 2)
        }
        return StreamFormat(raw)
    }

    var frameSeconds: Double { interval.seconds > 0 ? interval.seconds : 1.0 / 30 }
    private var frameNanoseconds: UInt64 { UInt64(frameSeconds * 1e9) }

    /// When the next frame completes, if the stream is running.
    var nextFrameDue: UInt64? { streaming && !gone ? streamStart + UInt64(nextFrame + 1) * frameNanoseconds : nil }

    // MARK: Frames

    /// Completes every frame due by `now` into queued buffers; frames with no queued buffer are lost.
    func advance(now: UInt64) {
        guard streaming, !gone else { return }
        var due = streamStart + UInt64(nextFrame + 1) * frameNanoseconds
        // An app that stopped reading for long loses frames; skip to the last few.
        if now > due + 16 * frameNanoseconds {
            nextFrame += Int((now - due) / frameNanoseconds) - 8
            due = streamStart + UInt64(nextFrame + 1) * frameNanoseconds
        }
        while due <= now {
            defer {
                nextFrame += 1
                due += frameNanoseconds
            }
            if case .droppedFrames(let count)? = faults.first {
                faults[0] = .droppedFrames(count - 1)
                if count <= 1 { faults.removeFirst() }
                continue
            }
            guard !queued.isEmpty else { continue }
            fill(buffers[queued.removeFirst()], frameNumber: nextFrame, at: due)
        }
    }

    private func fill(_ buffer: EmulatedBuffer, frameNumber: Int, at time: UInt64) {
        var bytes = (try? spec.frames.payload(frame: frameNumber, format: format, look: controls.look)) ?? []
        buffer.flags = MBX_BUF_FLAG_TIMESTAMP_MONOTONIC | MBX_BUF_FLAG_TSTAMP_SRC_SOE
        switch faults.first {
        case .truncatedFrames(let count)?:
            bytes = Array(bytes.prefix(bytes.count / 3))
            consumeFault(count, EmulatedFault.truncatedFrames)
        case .garbageFrames(let count)?:
            var generator = SystemRandomNumberGenerator()
            bytes = (0..<max(64, bytes.count / 2)).map { _ in UInt8.random(in: 0...0xFE, using: &generator) }
            consumeFault(count, EmulatedFault.garbageFrames)
        case .flaggedFrames(let count)?:
            buffer.flags |= MBX_BUF_FLAG_ERROR
            consumeFault(count, EmulatedFault.flaggedFrames)
        default: break
        }
        let used = min(bytes.count, buffer.length)
        bytes.withUnsafeBytes { buffer.memory.copyMemory(from: $0.baseAddress!, byteCount: used) }
        buffer.bytesUsed = used
        buffer.sequence = UInt32(truncatingIfNeeded: frameNumber)
        buffer.timestamp = time
        EmulatedFrameLog.record(card: spec.card, sequence: buffer.sequence, timestamp: time)
        buffer.state = .done
        done.append(buffers.firstIndex { $0 === buffer }!)
    }

    private func consumeFault(_ count: Int, _ make: (Int) -> EmulatedFault) {
        if count <= 1 { faults.removeFirst() } else { faults[0] = make(count - 1) }
    }

    func startStream(now: UInt64) {
        streaming = true
        streamStart = now
        nextFrame = 0
    }

    /// STREAMOFF: every buffer back to the app, nothing queued or done.
    func stopStream() {
        streaming = false
        queued = []
        done = []
        for buffer in buffers { buffer.state = .dequeued }
    }

    /// Unplugged: what was queued comes back flagged ERROR; everything after fails.
    func unplug() {
        for index in queued {
            let buffer = buffers[index]
            buffer.flags = MBX_BUF_FLAG_ERROR
            buffer.bytesUsed = 0
            buffer.state = .done
            done.append(index)
        }
        queued = []
        gone = true
    }

    // MARK: Format negotiation

    /// The nearest format the camera has to what was asked: same fourcc if offered, closest size.
    func nearestFormat(_ fourcc: UInt32, width: Int, height: Int) -> (EmulatedFormat, FrameSize) {
        let chosen = spec.formats.first { $0.fourcc.rawValue == fourcc } ?? spec.formats[0]
        let size = chosen.sizes.min { abs($0.width - width) + abs($0.height - height) < abs($1.width - width) + abs($1.height - height) }!
        return (chosen, size)
    }

    func nearestInterval(_ wanted: FrameInterval) -> FrameInterval {
        let offered = spec.formats.first { $0.fourcc == format.fourcc }?.intervals ?? [interval]
        guard wanted.denominator > 0, wanted.numerator > 0 else { return offered[0] }
        return offered.min { abs($0.seconds - wanted.seconds) < abs($1.seconds - wanted.seconds) } ?? interval
    }
}
