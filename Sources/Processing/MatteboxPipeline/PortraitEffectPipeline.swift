import Foundation

/// The pipeline behind `mattebox render` and the camera app's Portrait
/// control, written in one place: the portrait-effect stage with the
/// settings given, after a portrait-matte stage for photos that have no matte
/// yet. The settings are the plugin's own parameters by name, as text: the
/// plugin's descriptor types, ranges and checks them (as it does a pipeline
/// file's and `--set`'s), so a parameter the plugin gains needs no change here.
package enum PortraitEffectPipeline {
    package static let pluginID = "org.mattebox.portrait-effect"
    package static let mattePluginID = "org.mattebox.portrait-matte"

    /// What a user sets: parameter name → value as text; one not set keeps the plugin's default.
    package struct Settings: Codable, Sendable, Equatable {
        package var values: [String: String]

        package init(_ values: [String: String] = [:]) { self.values = values }

        /// A JSON object of parameter names to strings, numbers or booleans, as the page sends them.
        package init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            let object = try container.decode([String: Scalar].self)
            values = object.mapValues(\.text)
        }

        package func encode(to encoder: Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(values)
        }

        /// One JSON value as the text a pipeline file would hold.
        private struct Scalar: Decodable {
            let text: String
            init(from decoder: Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let bool = try? container.decode(Bool.self) {
                    text = String(bool)
                } else if let number = try? container.decode(Double.self) {
                    text = number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
                } else {
                    text = try container.decode(String.self)
                }
            }
        }
    }

    /// Whether a photo without a portrait matte gets one first: never, or when a face is found
    /// (for a photo with depth only from a neural model: the classical cut-out is no better than
    /// the depth's own edges), else from the photo's salient object when U²-Net-p is installed and
    /// it stands out as a subject.
    package enum Matte: Sendable { case none, auto }

    /// `origin`: how messages name where a value was set ("--aperture" for `key` aperture).
    /// `alsoSet`: the run's own settings (`--set`), applied after these; the effect's decide with them.
    package static func source(
        _ settings: Settings, matte: Matte, path: String, alsoSet: [ParameterSetting] = [], origin: (String) -> String? = { _ in nil }
    ) -> PipelineSource {
        var lines = ["stages:"]
        if matte == .auto {
            // A blur at the phone's own focus is rendered from the depth alone: no matte is made for it.
            var effective = settings.values
            for setting in alsoSet where setting.matches(pluginID) { effective[setting.key] = setting.value }
            let followsPhone = [nil, "auto"].contains(effective["focus"]) && [nil, "blur"].contains(effective["background"])
            lines += [
                "  - plugin: \(mattePluginID)",
                "    params: { with-depth: model-only, without-face: auto\(followsPhone ? ", skip-phone-focus: true" : "") }",
            ]
        }
        lines += ["  - plugin: \(pluginID)"]
        let applied = settings.values.sorted { $0.key < $1.key }.map {
            ParameterSetting(stage: pluginID, key: $0.key, value: $0.value, origin: origin($0.key))
        }
        return PipelineSource(text: lines.joined(separator: "\n") + "\n", path: path, settings: applied)
    }
}
