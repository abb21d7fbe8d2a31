import Foundation

/// An error a person can act on: what failed, on which file, device or plugin,
/// and (when known) what to do about it.
public struct MatteboxError: Error, CustomStringConvertible, Sendable, Equatable {
    public var message: String
    public var hint: String?
    /// A mistake on the command line (a pipeline name, conflicting options):
    /// the command exits 64, as for any other usage error.
    public var isCommandLineMistake: Bool

    public init(_ message: String, hint: String? = nil, commandLineMistake: Bool = false) {
        self.message = message
        self.hint = hint
        isCommandLineMistake = commandLineMistake
    }

    public var description: String {
        hint.map { "\(message) (\($0))" } ?? message
    }
}

extension MatteboxError: LocalizedError {
    public var errorDescription: String? { description }
}
