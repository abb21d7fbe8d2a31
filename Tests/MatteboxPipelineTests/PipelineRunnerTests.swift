import Foundation
import MatteboxBatch
import MatteboxCore
import MatteboxImageIO
import MatteboxRuntime
import MatteboxPipeline
import MatteboxPluginHost
import MatteboxTestSupport
import Testing

/// Running pipelines of real plugins, including one that fails on some photos.
@Suite struct PipelineRunnerTests {
    let folder: URL
    let registry: PluginRegistry

    init() throws {
        folder = try TestEnvironment.scratchDirectory("runner")
        let plugins = folder.appendingPathComponent("plugins")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        for name in ["fail_on_narrow", "needs_depth"] {
            _ = try TestEnvironment.compilePlugin(
                TestEnvironment.fixtures.appendingPathComponent("plugins/\(name).c"), into: plugins)
        }
        registry = PluginRegistry.discover(
            searchPath: PluginSearchPath(directories: [plugins.path, TestEnvironment.binDirectory.path]),
            scanner: .using(executable: TestEnvironment.mattebox))
    }

    private func runner(_ text: String, roles: Set<ImageRole> = []) throws -> PipelineRunner {
        let file = try PipelineFile.parse(text, path: "p.yaml")
        return try PipelineRunner(
            pipeline: try PipelineValidator.validate(file, registry: registry, providedRoles: roles), registry: registry)
    }

    @Test func aStageThatRequiresAMissingRoleIsRejectedUpFront() throws {
        let text = "stages:\n  - plugin: org.mattebox.orientation\n  - plugin: org.mattebox.tests.needs-depth"
        let error = #expect(throws: PipelineError.self) { try runner(text) }
        #expect(error?.description.contains(
            "p.yaml:3: stage 2 (org.mattebox.tests.needs-depth) requires `depth`, which neither the input nor an earlier stage provides") == true)
        let withDepth = try runner(text, roles: [.depth])
        var photo = Photo(primary: TestImages.pattern())
        photo.auxiliary[.depth] = TestImages.matte(width: 24, height: 16)
        #expect(try withDepth.run(&photo).map(\.status) == [.ok, .ok])
    }

    @Test func aRequiredStageFailureFailsOnlyThatPhoto() throws {
        let batch = BatchProcessor(
            runner: try runner("""
                stages:
                  - plugin: org.mattebox.tests.fail-on-narrow
                    params: { min-width: 40 }
                  - plugin: org.mattebox.samples.invert
                """),
            options: BatchOptions(outputDirectory: folder.appendingPathComponent("out")))
        let narrow = folder.appendingPathComponent("narrow.png"), wide = folder.appendingPathComponent("wide.png")
        try TestImages.writePhoto(to: narrow, orientation: 1, image: TestImages.pattern(width: 30, height: 20))
        try TestImages.writePhoto(to: wide, orientation: 1, image: TestImages.pattern(width: 48, height: 20))
        let before = try Data(contentsOf: narrow)

        let failed = batch.process(narrow, outputStem: "narrow")
        #expect(failed.status == .failed)
        #expect(failed.error?.contains("narrow.png") == true)
        #expect(failed.error?.contains("photo is 30 px wide, narrower than 40") == true)
        #expect(failed.stages.map(\.status) == [.failed])
        #expect(failed.output == nil)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out/narrow.jpg").path))
        #expect(try Data(contentsOf: narrow) == before)

        let succeeded = batch.process(wide, outputStem: "wide")
        #expect(succeeded.status == .ok)
        #expect(succeeded.stages.map(\.status) == [.ok, .ok])
        // The first stage leaves a marker image, so the default format keeps it: HEIF.
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("out/wide.heic").path))
    }

    @Test func anOptionalStageFailureIsRolledBackAndSkipped() throws {
        let pipeline = try runner("""
            stages:
              - plugin: org.mattebox.samples.invert
              - plugin: org.mattebox.tests.fail-on-narrow
                required: false
                params: { min-width: 1000 }
            """)
        let original = TestImages.pattern()
        var photo = Photo(primary: original.copy())
        let reports = try pipeline.run(&photo)
        #expect(reports.map(\.status) == [.ok, .skipped])
        #expect(reports[1].message?.contains("narrower than 1000") == true)
        #expect(photo.auxiliary.isEmpty)
        #expect(photo.primary.sample(x: 3, y: 3, channel: 0) == 255 - original.sample(x: 3, y: 3, channel: 0))
    }

    @Test func thePrimaryIsFinalOnceNoLaterStageDeclaresItAsAnOutput() throws {
        let invertThenPackage = try runner("stages:\n  - plugin: org.mattebox.samples.invert\n  - plugin: org.mattebox.heif")
        var photo = Photo(primary: TestImages.pattern())
        var seen: [PixelFingerprint] = []
        _ = try invertThenPackage.run(&photo, primaryIsFinal: { seen.append(PixelFingerprint($0.primary)) })
        #expect(seen == [PixelFingerprint(photo.primary)], "called once, with the inverted pixels")

        let packageThenInvert = try runner("stages:\n  - plugin: org.mattebox.heif\n  - plugin: org.mattebox.samples.invert")
        var calls = 0
        _ = try packageThenInvert.run(&photo, primaryIsFinal: { _ in calls += 1 })
        #expect(calls == 0, "the last stage changes the primary, so it is never final before the end")
    }

    @Test func encodingAheadWritesTheSameFileAsEncodingAtTheEnd() throws {
        let input = folder.appendingPathComponent("ahead.png")
        try TestImages.writePhoto(to: input, orientation: 1, image: TestImages.pattern(width: 120, height: 90))
        var files: [Data] = []
        for ahead in [false, true] {
            var options = BatchOptions(outputDirectory: folder.appendingPathComponent("ahead-\(ahead)"))
            options.encodeAhead = ahead
            let batch = BatchProcessor(
                runner: try runner("stages:\n  - plugin: org.mattebox.samples.invert\n  - plugin: org.mattebox.heif"), options: options)
            let outcome = batch.process(input, outputStem: "ahead")
            #expect(outcome.status == .ok, "\(outcome.error ?? "")")
            files.append(try Data(contentsOf: URL(fileURLWithPath: try #require(outcome.output))))
        }
        #expect(files.count == 2 && files[0] == files[1])
    }

    @Test func aJPEGOrPNGPrimaryIsEncodedAheadAndAnUnchangedHEICOneIsNot() throws {
        let writer = PhotoWriter(directory: folder, format: nil)
        let pattern = Photo(primary: TestImages.pattern(width: 64, height: 48))
        for format in [OutputFormat.jpeg, .png] {
            let file = folder.appendingPathComponent("ahead-input.\(format.fileExtension)")
            try AtomicFile.write(try ImageEncoder.encode(pattern, as: format), to: file)
            let ahead = writer.encodeAhead(try ImageDecoder.decodePhoto(at: file))
            #expect(ahead != nil, "a \(format) input's primary is not encoded ahead")
            ahead?.wait()
        }
        let heic = folder.appendingPathComponent("ahead-input.heic")
        try AtomicFile.write(try ImageEncoder.encode(pattern, as: .heic), to: heic)
        #expect(writer.encodeAhead(try ImageDecoder.decodePhoto(at: heic)) == nil, "an unchanged HEIC primary is copied, not encoded")
        #expect(PhotoWriter(directory: folder, format: .jpeg).encodeAhead(pattern.deepCopy()) == nil, "--format jpeg writes no HEIF")
    }

    @Test func aStageNeedingAnOptionalOutputIsToldWhichStageMakesIt() throws {
        let text = "stages:\n  - plugin: org.mattebox.depth\n  - plugin: org.mattebox.tests.needs-depth"
        let error = #expect(throws: PipelineError.self) { try runner(text) }
        #expect(error?.description.contains(
            "requires `depth`, which stage 1 (org.mattebox.depth) makes only when it can (an optional output)") == true,
            "\(error?.description ?? "")")
        let optional = try runner(text + "\n    required: false")
        #expect(optional.pipeline.stages.map(\.required) == [true, false])
    }
}
