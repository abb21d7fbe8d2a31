import Foundation

/// An error a person can act on: what failed, on which file, device or plugin,
/// and (when known) what to do about it.
public struct MatteboxError: Error, CustomStringConvertible, Sendable, Equatable {
    public var message: String
    public var hint: String?

    public init(_ message: String, hint: String? = nil) {
        self.message = message
        self.hint = hint
    }

    public var description: String {
        hint.map { "\(message) (\($0))" } ?? message
    }
}

extension MatteboxError: LocalizedError {
    public var errorDescription: String? { description }
}
