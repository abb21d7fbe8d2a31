import Foundation

/// The pipeline behind `mattebox render` and the camera app's Portrait
/// control, written in one place: the portrait-effect stage with the
/// settings given (nil keeps the plugin's default), after a portrait-matte
/// stage for photos that have no matte yet.
package enum PortraitEffectPipeline {
    package static let pluginID = "org.mattebox.portrait-effect"
    package static let mattePluginID = "org.mattebox.portrait-matte"

    /// What a user sets; the plugin checks each value and names a bad one.
    package struct Settings: Codable, Sendable, Equatable {
        package var aperture: Double?
        package var focus: String?
        package var background: String?
        package var highlights: Double?
        package var keepAuxiliary: Bool?

        package init(aperture: Double? = nil, focus: String? = nil, background: String? = nil, highlights: Double? = nil, keepAuxiliary: Bool? = nil) {
            self.aperture = aperture
            self.focus = focus
            self.background = background
            self.highlights = highlights
            self.keepAuxiliary = keepAuxiliary
        }
    }

    /// Whether a photo without a portrait matte gets one first: never, or when a face is found
    /// (for a photo with depth only from a neural model: the classical cut-out is no better than
    /// the depth's own edges).
    package enum Matte: Sendable { case none, auto }

    package static func source(_ settings: Settings, matte: Matte, path: String) -> PipelineSource {
        var parameters: [String] = []
        if let aperture = settings.aperture { parameters.append("aperture: \(aperture)") }
        if let focus = settings.focus { parameters.append("focus: \(quoted(focus))") }
        if let background = settings.background { parameters.append("background: \(quoted(background))") }
        if let highlights = settings.highlights { parameters.append("highlights: \(highlights)") }
        if let keep = settings.keepAuxiliary { parameters.append("keep-auxiliary: \(keep)") }
        var lines = ["stages:"]
        if matte == .auto { lines += ["  - plugin: \(mattePluginID)", "    params: { with-depth: model-only }"] }
        lines += ["  - plugin: \(pluginID)", "    params: { \(parameters.joined(separator: ", ")) }"]
        return PipelineSource(text: lines.joined(separator: "\n") + "\n", path: path)
    }

    /// A YAML double-quoted scalar (JSON's string syntax is YAML's).
    private static func quoted(_ text: String) -> String {
        String(decoding: (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
    }
}
