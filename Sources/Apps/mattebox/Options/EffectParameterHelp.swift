import ArgumentParser
import MatteboxPipeline
import MatteboxPluginHost

/// `render`'s help for the portrait effect's parameters, read from the
/// plugin's descriptor (its words, default, range and choices), so the help
/// cannot drift from what the plugin accepts.
enum EffectParameterHelp {
    /// The plugins `render` runs with, found once per process (when its options are built) and
    /// used again by its checks and its batch.
    static let registry = PluginRegistry.discoverForThisExecutable()

    /// The portrait-effect plugin's parameters.
    private static let parameters: [ParameterSpec]? = registry.plugin(PortraitEffectPipeline.pluginID)?.description.parameters

    static func help(_ key: String, valueName: String? = nil) -> ArgumentHelp {
        guard let spec = parameters?.first(where: { $0.key == key }) else {
            return ArgumentHelp(
                "The portrait-effect plugin's \(key) (the plugin is not installed: `mattebox plugins list` shows what is).",
                valueName: valueName)
        }
        let text = spec.description.prefix(1).uppercased() + spec.description.dropFirst()
        return ArgumentHelp("\(text) (\(spec.contract)).", valueName: valueName)
    }
}
