import Foundation
import MatteboxTestSupport
import Testing

/// The app's Portrait control starts where the photo was rendered: a preview asked for without an
/// f-number or focus is made with the photo's own (a Lens Blur photo's GFocus point and the
/// f-number its blur matches), and says them in `X-Mattebox-Aperture` and `X-Mattebox-Focus`,
/// which the page sets its slider and focus from; one asked for with them says those back.
@Suite(.serialized, .enabled(if: TestEnvironment.shared != nil, "../shared/depth-samples is missing"))
struct PortraitControlStartTests {
    /// A header's value in a reply's head.
    static func header(_ name: String, in head: String) -> String? {
        head.split(separator: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
            .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
    }

    @Test func aLensBlurPhotoStartsAtThePhonesFocusAndStrength() throws {
        let sample = TestEnvironment.shared!.appendingPathComponent("depth-samples/spite__depth-player__greek-helmet.jpg")
        let app = try ServedApp { library in
            try FileManager.default.copyItem(at: sample, to: library.appendingPathComponent("helmet.jpg"))
        }
        let listing = TestEnvironment.run([TestEnvironment.mattebox, "inspect", sample.path]).output
        let phoneFocus = try #require(listing.split(separator: "\n").first { $0.hasPrefix("the phone's focus: ") }, "\(listing)")
        let point = String(phoneFocus.dropFirst("the phone's focus: ".count).prefix { $0 != " " })

        let start = try app.send("GET", "/api/library/helmet.jpg/portrait.jpg?size=480", token: true)
        #expect(start.status == 200, "\(String(decoding: start.body, as: UTF8.self))")
        #expect(Self.header("X-Mattebox-Focus", in: start.head) == point, "\(start.head)")
        let aperture = try #require(Self.header("X-Mattebox-Aperture", in: start.head).flatMap(Double.init), "\(start.head)")
        #expect((1.4...16).contains(aperture) && aperture != 4.5, "the phone's strength, not the plugin's default: f/\(aperture)")

        let asked = try app.send("GET", "/api/library/helmet.jpg/portrait.jpg?size=480&aperture=8&focus=0.2,0.3", token: true)
        #expect(Self.header("X-Mattebox-Aperture", in: asked.head) == "8.0" && Self.header("X-Mattebox-Focus", in: asked.head) == "0.200,0.300",
                "\(asked.head)")
    }
}
