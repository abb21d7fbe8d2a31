import Foundation

/// An error a person can act on: what failed, on which file, device or plugin,
/// and (when known) what to do about it.
package struct MatteboxError: Error, CustomStringConvertible, Sendable, Equatable {
    package var message: String
    package var hint: String?
    /// A mistake on the command line (a pipeline name, conflicting options):
    /// the command exits 64, as for any other usage error.
    package var isCommandLineMistake: Bool

    package init(_ message: String, hint: String? = nil, commandLineMistake: Bool = false) {
        self.message = message
        self.hint = hint
        isCommandLineMistake = commandLineMistake
    }

    package var description: String {
        hint.map { "\(message) (\($0))" } ?? message
    }
}

extension MatteboxError: LocalizedError {
    package var errorDescription: String? { description }
}
