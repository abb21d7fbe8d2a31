import Dispatch

/// Runs work that blocks (decoding, encoding, a pipeline, a wait on a lock)
/// on Dispatch's threads instead of Swift concurrency's cooperative pool,
/// which has one thread per core: on two cores, two photos being processed
/// there would starve every other task (a shutter press, the session actor,
/// the preview) until they finish.
package enum BlockingWork {
    package static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async { continuation.resume(with: Result { try work() }) }
        }
    }

    package static func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async { continuation.resume(returning: work()) }
        }
    }
}
