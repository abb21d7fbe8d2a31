import Foundation

/// The movie of a Google Motion Photo (Android "Motion Photo format 1.0", and
/// the older MicroVideo) and the XMP that locates it: the Container
/// directory's `MotionPhoto` item by its `Item:Length` from the end of the
/// file, or `GCamera:MicroVideoOffset`. In a JPEG the movie follows the
/// image's end; in a HEIC it is an `mpvd` box (`MotionPhotoVideoBox`). A JPEG
/// or HEIC written from such a photo gets the same movie again, with the
/// directory brought up to date, so the Motion Photo is rebuilt rather than
/// left with an XMP pointing at nothing.
package enum MotionPhotoTrailer {
    /// Where the movie lies in `jpeg`, when the XMP says it is a Motion Photo and an MP4/MOV is there.
    package static func range(in jpeg: [UInt8], xmp: Data?) -> Range<Int>? {
        guard let xmp, let length = movieLength(String(decoding: xmp, as: UTF8.self)), length >= 16, length < jpeg.count - 4
        else { return nil }
        let start = jpeg.count - length
        guard Array(jpeg[(start + 4)..<(start + 8)]) == Array("ftyp".utf8) else { return nil }
        return start..<jpeg.count
    }

    /// The movie's length from the end of the file, as the XMP gives it.
    package static func movieLength(_ xmp: String) -> Int? {
        if attribute("MotionPhoto", in: xmp) == "1" {
            for item in matches(of: #"<(?:\w+:)?Item\b[^>]*>"#, in: xmp) where item.contains("Semantic=\"MotionPhoto\"") {
                return attribute("Length", in: item).flatMap { Int($0) }
            }
        }
        if attribute("MicroVideo", in: xmp) == "1" { return attribute("MicroVideoOffset", in: xmp).flatMap { Int($0) } }
        return nil
    }

    /// `jpeg` without the movie at its end.
    static func removing(_ movie: Data?, from jpeg: [UInt8]) -> [UInt8] {
        guard let movie, jpeg.count > movie.count, jpeg.suffix(movie.count).elementsEqual(movie) else { return jpeg }
        return Array(jpeg.dropLast(movie.count))
    }

    /// `jpeg` with the movie appended, when the XMP it carries points at it
    /// (a JPEG's movie is found only through its XMP); else a note.
    static func appending(_ movie: Data?, to jpeg: Data, xmp: Data?, notes: inout [String: String]) -> Data {
        guard let movie else { return jpeg }
        guard let xmp, movieLength(String(decoding: xmp, as: UTF8.self)) == movie.count else {
            notes["motionPhoto"] = "the Motion Photo's movie (\(movie.count) bytes) not kept: a JPEG's movie is found "
                + "through its XMP, and this photo's XMP does not locate it (write HEIC to keep it)"
            return jpeg
        }
        return jpeg + movie
    }

    /// The XMP with its Container directory describing the file about to be
    /// written: the primary item's type and padding (a JPEG's movie follows
    /// it at once, a HEIC's after the `mpvd` header) and the movie's length.
    /// XMP without a directory (MicroVideo, or none) is returned as it is.
    package static func describing(_ xmp: Data, primaryMime: String, padding: Int, movieLength: Int) -> Data {
        var text = String(decoding: xmp, as: UTF8.self)
        guard attribute("MotionPhoto", in: text) == "1" else { return xmp }
        for item in matches(of: #"<(?:\w+:)?Item\b[^>]*>"#, in: text) {
            let values: [String: String]
            if item.contains("Semantic=\"Primary\"") {
                values = ["Mime": primaryMime, "Padding": String(padding)]
            } else if item.contains("Semantic=\"MotionPhoto\"") {
                values = ["Length": String(movieLength)]
            } else {
                continue
            }
            text = text.replacingOccurrences(of: item, with: settingAttributes(values, in: item))
        }
        return Data(text.utf8)
    }

    /// The tag with each attribute set (replaced, or added in the prefix its `Semantic` uses).
    private static func settingAttributes(_ values: [String: String], in tag: String) -> String {
        var tag = tag
        let prefix = tag.range(of: #"\w+(?=:Semantic=)"#, options: .regularExpression).map { String(tag[$0]) } ?? "Item"
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            if let range = tag.range(of: #"(?<=[:\s]\#(name)=")[^"]*(?=")"#, options: .regularExpression) {
                tag.replaceSubrange(range, with: value)
            } else if let close = tag.range(of: #"\s*/?>$"#, options: .regularExpression) {
                tag.insert(contentsOf: " \(prefix):\(name)=\"\(value)\"", at: close.lowerBound)
            }
        }
        return tag
    }

    /// The XMP with `MotionPhoto` (and `MicroVideo`) set to 0, which the format
    /// defines as "not a Motion Photo": for outputs that do not carry the movie.
    static func notAMotionPhoto(_ xmp: Data) -> Data {
        var text = String(decoding: xmp, as: UTF8.self)
        for name in ["MotionPhoto", "MicroVideo"] {
            for pattern in [#"(?<=[:\s]\#(name)=")1(?=")"#, #"(?<=:\#(name)>)\s*1\s*(?=<)"#] {
                guard let regex = try? NSRegularExpression(pattern: pattern) else { continue }
                text = regex.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "0")
            }
        }
        return Data(text.utf8)
    }

    private static func attribute(_ name: String, in text: String) -> String? {
        // Attribute form (GCamera:MotionPhoto="1") or element form (<GCamera:MotionPhoto>1</...>).
        for pattern in [#"[:\s]\#(name)="([^"]*)""#, #":\#(name)>([^<]*)<"#] {
            if let regex = try? NSRegularExpression(pattern: pattern),
                let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                let range = Range(match.range(at: 1), in: text)
            {
                return String(text[range]).trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    private static func matches(of pattern: String, in text: String) -> [String] {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range, in: text).map { String(text[$0]) }
        }
    }
}
