import ArgumentParser
import MatteboxBatch
import MatteboxImageIO
import MatteboxPipeline
import MatteboxPluginHost

/// What shell completion offers for Mattebox's values: format names, named
/// pipelines (and YAML files), plugin ids, photo files.
enum Completions {
    static let formats = CompletionKind.list(ImageContainers.writable.flatMap { [$0.name] + $0.aliases })

    static let pipelines = CompletionKind.custom { _, _, prefix in
        PipelineSource.named.keys.sorted().filter { $0.hasPrefix(prefix) }
    }

    static let pluginIDs = CompletionKind.custom { _, _, prefix in
        PluginRegistry.discoverForThisExecutable().available.map(\.description.id).filter { $0.hasPrefix(prefix) }
    }

    static let photos = CompletionKind.file(extensions: BatchInputs.imageExtensions.sorted())
}
