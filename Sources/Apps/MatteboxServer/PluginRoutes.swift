import Hummingbird
import MatteboxPluginHost

/// A plugin's parameter contract as JSON (`GET /api/plugins/{name}/parameters`):
/// type, default, range, choices and help of each parameter, straight from its
/// descriptor, so the page's controls (the Portrait control's f-number slider)
/// take their bounds from the plugin and not from a copy of them.
package struct PluginRoutes: Sendable {
    let registry: PluginRegistry

    package init(registry: PluginRegistry) { self.registry = registry }

    package func add(to router: Router<AppRequestContext>) {
        let registry = self.registry
        router.get("/api/plugins/{name}/parameters") { _, context in
            let name = try context.parameters.require("name")
            guard let plugin = registry.plugin(named: name)?.description else {
                return try JSONReply.error(.notFound, "no plugin \(name) is installed")
            }
            return try JSONReply.ok(["plugin": PluginParameters(id: plugin.id, parameters: plugin.parameters)])
        }
    }

    private struct PluginParameters: Encodable {
        let id: String
        let parameters: [ParameterSpec]
    }
}
