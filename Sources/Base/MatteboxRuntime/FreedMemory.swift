#if canImport(Glibc)
import Glibc
#endif

/// Gives the heap's free pages back to the system after a step that used a lot and freed it (a
/// network's activations, a working frame), so the next step's peak does not stand on memory no one
/// holds: glibc keeps what was freed in each thread's arena until told (`malloc_trim`, which Swift's
/// Glibc module does not declare, so it is looked up once).
package enum FreedMemory {
    private typealias Trim = @convention(c) (Int) -> Int32
    private static let trim: Trim? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: Trim.self)
        #else
        return nil
        #endif
    }()

    package static func release() { _ = trim?(0) }
}
