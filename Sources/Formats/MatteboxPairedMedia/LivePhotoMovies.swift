import Foundation

/// The one rule for pairing a Live Photo's still and movie by name, used by
/// `process`, `inspect` and the camera app's library: the movie has the still's
/// name without its extension and without a Motion Photo's ".MP"
/// (IMG_0001.MOV beside IMG_0001.HEIC, as iPhones store them, or beside
/// IMG_0001.MP.jpg). Built once from a folder's listing, so pairing every
/// still in it costs a lookup each.
package struct LivePhotoMovies: Sendable {
    package static let movieExtensions: Set<String> = ["mov", "mp4"]

    /// Movie names by their name without extension; the first in name order wins.
    private var byStem: [String: String] = [:]

    package init(names: some Sequence<String>) {
        for name in names.sorted() where Self.isMovieName(name) {
            let stem = (name as NSString).deletingPathExtension
            if byStem[stem] == nil { byStem[stem] = name }
        }
    }

    /// The movies among `folder`'s files.
    package init(folder: URL) {
        self.init(names: (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
    }

    /// The name of the movie that pairs with the still named `still`, if there is one.
    package func movie(for still: String) -> String? {
        byStem[Self.stem(of: (still as NSString).deletingPathExtension)]
    }

    package static func isMovieName(_ name: String) -> Bool {
        !name.hasPrefix(".") && movieExtensions.contains((name as NSString).pathExtension.lowercased())
    }

    /// A still's name without extension as its movie shares it: "IMG.MP" → "IMG".
    package static func stem(of stillStem: String) -> String {
        (stillStem as NSString).pathExtension.uppercased() == "MP" ? (stillStem as NSString).deletingPathExtension : stillStem
    }
}
