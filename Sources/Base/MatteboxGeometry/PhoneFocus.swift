import Foundation

/// Where a phone focused its own depth-of-field render and how strong it made
/// it, when the file records it (Google's Lens Blur: XMP GFocus), so a render
/// with no settings reproduces the phone's choice. It reaches the portrait
/// effect as a shared value of the photo (`shared.phone.focus`), never written
/// to an output.
package struct PhoneFocus: Sendable, Equatable {
    /// The shared value's name (a plugin reads `shared.phone.focus`).
    package static let sharedName = "phone.focus"

    /// The focused point, 0...1 across the photo's width and height as stored.
    package var x: Double
    package var y: Double
    /// The blur radius, as a share of the width, between the nearest and the farthest of the
    /// depth map's range: BlurAtInfinity x FocalDistance x (1/near - 1/far). Nil when not recorded.
    package var blurOverDepthRange: Double?

    package init(x: Double, y: Double, blurOverDepthRange: Double? = nil) {
        self.x = x
        self.y = y
        self.blurOverDepthRange = blurOverDepthRange
    }

    /// "x=0.5 y=0.5 blur=0.027", the shared value's text.
    package var encoded: String {
        var text = String(format: "x=%.6f y=%.6f", x, y)
        if let blurOverDepthRange { text += String(format: " blur=%.8f", blurOverDepthRange) }
        return text
    }

    package init?(encoded: String) {
        var fields: [String: Double] = [:]
        for part in encoded.split(separator: " ") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, let value = Double(pair[1]), value.isFinite else { return nil }
            fields[String(pair[0])] = value
        }
        guard let x = fields["x"], let y = fields["y"] else { return nil }
        self.init(x: x, y: y, blurOverDepthRange: fields["blur"])
    }
}
