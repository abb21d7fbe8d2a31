import MatteboxPluginHost

/// The human-readable plugin description `mattebox plugins inspect` prints, in
/// the spirit of gst-inspect-1.0.
enum PluginInspection {
    static func text(_ plugin: PluginDescription, path: String) -> String {
        var lines = [
            "\(plugin.name) (\(plugin.id))",
            "  \(plugin.summary)",
            "",
            "  Version        \(plugin.version)",
            "  Plugin ABI     \(plugin.abiVersion)",
            "  Vendor         \(plugin.vendor)",
            "  License        \(plugin.license)",
            "  Thread safety  \(plugin.threadSafety)",
            "  File           \(path)",
            "",
            "Inputs:",
        ]
        lines += ports(plugin.inputs)
        lines += ["", "Outputs:"]
        lines += ports(plugin.outputs)
        lines += ["", "Parameters:"]
        if plugin.parameters.isEmpty { lines.append("  none") }
        for spec in plugin.parameters {
            lines.append("  \(spec.key)  (\(spec.type))")
            lines.append("      \(spec.description)")
            lines.append("      " + spec.contract)
        }
        return lines.joined(separator: "\n")
    }

    private static func ports(_ ports: [PortDescription]) -> [String] {
        guard !ports.isEmpty else { return ["  none"] }
        return ports.map { port in
            "  \(port.role)\(port.optional ? " (optional)" : "")\(port.description.isEmpty ? "" : ": \(port.description)")"
        }
    }
}
