import Foundation
import MatteboxCapture
import MatteboxCore
import MatteboxHEIF
import MatteboxImageIO
import MatteboxPipeline
import MatteboxRuntime

/// Runs each photo a capture session took through the pipeline and writes it
/// (`capture-<time>-<id>` in the writer's folder), in two steps: the proxy
/// (the photo as taken) at once, the final in its place once the stages ran.
/// Mirroring a front-camera photo, when its settings ask for it, is done
/// here by the Mirroring plugin before the proxy: the one place a captured
/// photo is mirrored (a pipeline's own Mirroring stage comes later and has
/// the last word). Proxies are recorded in the folder's `PendingCaptures`
/// until their final is written, so a run killed between the two is finished
/// by the next.
package struct PipelineDelivery: PhotoDelivery {
    package var runner: PipelineRunner?
    /// The Mirroring plugin with `policy: mirrored`; nil when it is not installed.
    package var mirroring: PipelineRunner?
    package var writer: PhotoWriter
    package let pending: PendingCaptures

    /// `writer` gets the folder's manifest when it has none, so a final may
    /// replace its proxy only while the proxy holds what was written there.
    package init(runner: PipelineRunner?, mirroring: PipelineRunner?, writer: PhotoWriter) {
        self.runner = runner
        self.mirroring = mirroring
        var writer = writer
        if writer.manifest == nil { writer.manifest = ResumeManifest(outputDirectory: writer.directory, shard: nil) }
        self.writer = writer
        pending = PendingCaptures(folder: writer.directory)
    }

    /// The auxiliary images the pipeline's stages can make.
    package var deliverableRoles: Set<ImageRole> {
        Set(runner?.pipeline.stages.flatMap { $0.plugin.outputs.map(\.role) } ?? []).subtracting([.primary, .thumbnail])
    }

    package func writeProxy(_ captured: CapturedPhoto) throws -> ProxyPhoto {
        var captured = captured
        var stages: [StageReport] = []
        if captured.mirroringRequested {
            guard let mirroring else {
                throw MatteboxError(
                    "mirroring the front camera needs the org.mattebox.mirroring plugin, which was not found",
                    hint: "`mattebox plugins list` shows what is installed")
            }
            stages = try failingPhoto(captured) { try mirroring.run(&captured.photo) }
            captured.mirroringRequested = false
        }
        // The format is chosen at the press, so the final has the proxy's name: HEIC when the
        // pipeline can make auxiliary images the photo asked for (the default rule's choice for them).
        if writer.format == nil, captured.photo.metadata.output.format == nil {
            let heic = !deliverableRoles.subtracting(captured.skippedRoles).isEmpty
            captured.photo.metadata.output.format = (heic ? OutputFormat.heic : .jpeg).rawValue
        }
        let stem = "capture-\(Self.stamp(captured.photo.metadata.capture.timestamp ?? Date()))-\(captured.id)"
        let url = PhotoWriter.destination(in: writer.directory, stem: stem, format: writer.format(for: captured.photo))
        try pending.add(PendingCaptures.Entry(
            proxy: url.lastPathComponent, context: captured.photo.metadata.capture,
            skippedRoles: captured.skippedRoles.map(\.rawValue).sorted(), skipReason: captured.skipReason,
            cameraPath: captured.cameraPath, width: captured.size.width, height: captured.size.height))
        // The proxy must be on disk within a frame or few: its primary is encoded with x265's ultrafast
        // preset, once, and the final copies it; at quality prioritisation the final encodes the primary
        // again from the frame's own pixels with the slow preset it asks for (not from the proxy's).
        var asTaken = captured.photo
        if asTaken.metadata.output.encoderPreset == nil {
            asTaken.metadata.output.encoderPreset = HEIFWriteOptions.preset(for: .speed)
        }
        let written: PhotoWriter.Written
        do {
            written = try writer.write(asTaken, stem: stem, keepingPrimaryOrigin: captured.quality != .quality)
        } catch {
            pending.finish(url)
            throw MatteboxError("photo \(captured.id) from \(captured.cameraPath): \(error)")
        }
        // The final copies the proxy's coded primary while the stages leave its pixels alone.
        if let origin = written.primaryOrigin { captured.photo.metadata.codedOrigins[.primary] = origin }
        return ProxyPhoto(output: written.output, captured: captured, stages: stages)
    }

    package func finish(_ proxy: ProxyPhoto, processed: @Sendable () -> Void) throws -> DeliveredPhoto {
        defer { pending.finish(proxy.output) }
        var photo = proxy.captured.photo
        if let economy = proxy.captured.economy {
            // Fast-capture prioritisation: the vision plugins' effort and the encoder follow capture.quality.
            photo.metadata.capture.quality = .speed
            photo.metadata.notes["capturePrioritisation"] =
                "processed at speed (mattes at their fast working size, x265 ultrafast for what was not in the proxy): "
                + "\(economy); --priority quality never trades quality for pace"
        }
        // The primary is encoded while the matte stages run, unless the proxy's can be copied.
        let stem = proxy.output.deletingPathExtension().lastPathComponent
        let (ran, written) = try failingPhoto(proxy.captured) {
            try writer.run(
                &photo, through: runner, stem: stem, skipping: proxy.captured.skippedRoles, reason: proxy.captured.skipReason
            ) { _ in
                processed()
                guard FileManager.default.fileExists(atPath: proxy.output.path) else {
                    throw MatteboxError("\(proxy.output.path) was removed before its processing finished, so no final was written")
                }
            }
        }
        let stages = proxy.stages + ran
        if written.output != proxy.output, writer.manifest?.ownership(of: proxy.output) == .mattebox {
            // A stage chose another format: the proxy, still as written, gives way to the final.
            try? FileManager.default.removeItem(at: proxy.output)
        }
        return DeliveredPhoto(
            output: written.output, auxiliaryOutputs: written.auxiliary, stages: stages,
            notes: photo.metadata.notes.merging(written.notes) { stage, _ in stage },
            absenceReasons: Dictionary(uniqueKeysWithValues: photo.absenceReasons.map { ($0.key.rawValue, $0.value) }))
    }

    /// Both steps at once: the proxy, then the final in its place.
    package func deliver(_ captured: CapturedPhoto, processed: @Sendable () -> Void) throws -> DeliveredPhoto {
        try finish(try writeProxy(captured), processed: processed)
    }

    package func pendingProxies() -> [URL] { pending.proxies }

    package func finishPending(_ proxy: URL, processed: @Sendable () -> Void) throws -> DeliveredPhoto {
        guard let entry = pending.entry(for: proxy) else {
            throw MatteboxError("\(proxy.path) is not a pending capture")
        }
        guard writer.manifest?.ownership(of: proxy) == .mattebox else {
            pending.finish(proxy)
            throw MatteboxError(
                "\(proxy.path) was changed since Mattebox wrote it as a proxy, so it is yours now: it was not processed")
        }
        var photo: Photo
        do {
            photo = try ImageDecoder.decodePhoto(at: proxy)
        } catch {
            pending.finish(proxy)
            throw MatteboxError("the pending capture \(proxy.path) cannot be read, so it was not processed: \(error)")
        }
        // The proxy is Mattebox's own output (the manifest says so, checked above), not an input: its final replaces it.
        photo.source = nil
        photo.metadata.capture = entry.context
        photo.metadata.output.format = OutputFormat(rawValue: proxy.pathExtension)?.rawValue
        let captured = CapturedPhoto(
            photo: photo, id: 0, frameSequence: 0, frameTimestamp: 0, pressTime: 0, quality: entry.context.quality,
            size: FrameSize(width: entry.width, height: entry.height),
            skippedRoles: Set(entry.skippedRoles.map { ImageRole(rawValue: $0) }), skipReason: entry.skipReason,
            cameraPath: entry.cameraPath)
        Log.emit(.info, "finishing \(proxy.lastPathComponent), left pending by an earlier run")
        return try finish(ProxyPhoto(output: proxy, captured: captured), processed: processed)
    }

    /// Runs `body`, naming the photo in what it throws.
    private func failingPhoto<T>(_ captured: CapturedPhoto, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let failure as StageFailure {
            throw MatteboxError("photo \(captured.id) from \(captured.cameraPath): \(failure.message)")
        } catch let error as MatteboxError {
            throw MatteboxError("photo \(captured.id) from \(captured.cameraPath): \(error.description)")
        }
    }

    private static func stamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss-SSS"
        return formatter.string(from: date)
    }
}
