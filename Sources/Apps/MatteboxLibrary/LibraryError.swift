import Foundation

/// What a library request can go wrong with, as the client sees it.
package enum LibraryError: Error, CustomStringConvertible {
    case notFound(String)
    case unreadable(String, String)
    case noAuxiliary(String, String)
    case noMovie(String)
    case conflict(String)

    package var description: String {
        switch self {
        case .notFound(let id): return "no photo \(id) in the library"
        case .unreadable(let id, let why): return "\(id) cannot be read: \(why)"
        case .noAuxiliary(let id, let role): return "\(id) has no \(role) image"
        case .noMovie(let id): return "\(id) has no movie (not a Live Photo)"
        case .conflict(let why): return why
        }
    }
}
