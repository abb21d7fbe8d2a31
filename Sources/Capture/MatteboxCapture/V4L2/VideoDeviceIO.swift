import CV4L2
import Foundation

/// The thin seam every V4L2 call goes through: open, close, ioctl, mmap,
/// munmap and poll at the raw level, with errors the kernel way (-1 and
/// errno). Production talks to libv4l2; tests talk to an emulated device that
/// follows the same rules, so everything above the seam is the code that runs
/// against real cameras.
package protocol VideoDeviceIO: AnyObject, Sendable {
    func open(_ path: String, flags: Int32) -> Int32
    func close(_ fd: Int32) -> Int32
    func ioctl(_ fd: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32
    /// The buffer's memory, or nil with errno set.
    func mmap(_ fd: Int32, length: Int, offset: Int) -> UnsafeMutableRawPointer?
    func munmap(_ address: UnsafeMutableRawPointer, length: Int) -> Int32
    /// poll(2) on one descriptor: the result (0 on timeout, -1 on error) and revents.
    func poll(_ fd: Int32, events: Int16, timeoutMilliseconds: Int32) -> (result: Int32, revents: Int16)
}

/// Real devices through libv4l2, with its format conversion switched off
/// (frames are converted by `FrameConverter`, and only when used).
package final class LibV4L2IO: VideoDeviceIO {
    package init() {}

    package func open(_ path: String, flags: Int32) -> Int32 { mbx_v4l2_open(path, flags) }
    package func close(_ fd: Int32) -> Int32 { mbx_v4l2_close(fd) }
    package func ioctl(_ fd: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32 {
        mbx_v4l2_ioctl(fd, request, argument)
    }
    package func mmap(_ fd: Int32, length: Int, offset: Int) -> UnsafeMutableRawPointer? {
        mbx_v4l2_mmap(fd, length, off_t(offset))
    }
    package func munmap(_ address: UnsafeMutableRawPointer, length: Int) -> Int32 { mbx_v4l2_munmap(address, length) }
    package func poll(_ fd: Int32, events: Int16, timeoutMilliseconds: Int32) -> (result: Int32, revents: Int16) {
        var descriptor = pollfd(fd: fd, events: events, revents: 0)
        var result: Int32
        repeat { result = Glibc.poll(&descriptor, 1, timeoutMilliseconds) } while result < 0 && errno == EINTR
        return (result, descriptor.revents)
    }
}
