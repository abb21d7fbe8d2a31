import Foundation
import MatteboxTestSupport
import Testing

/// `mattebox record` and `capture --live` as a user runs them, on a replay
/// camera, with the files read back by ffprobe and exiftool.
@Suite struct RecordCommandTests {
    private func replayConfig() throws -> (URL, URL) {
        try ReplayCamerasConfig.write(
            "record-cli",
            cameras: """
                  - name: Desk Back
                    position: back
                    images: [PHOTOS/orientation-1.jpg, PHOTOS/selfie-front.jpg]
                    framesPerPicture: 10
                    sizes: [640x480]
                """)
    }

    private func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    /// Waits up to a minute for a `.recording.mp4` in `folder` that ffprobe reads `frames` frames from.
    private func waitForPartialMovie(in folder: URL, frames: Int) -> Bool {
        let deadline = Date(timeIntervalSinceNow: 60)
        while Date() < deadline {
            if let name = (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.first(where: { $0.hasSuffix(".recording.mp4") }),
                let probe = try? MovieProbe.read(folder.appendingPathComponent(name).path), probe.frames >= frames
            {
                return true
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
        return false
    }

    @Test func recordsForTheDurationAsked() throws {
        let (config, folder) = try replayConfig()
        for codec in ["h264", "hevc"] {
            let out = folder.appendingPathComponent(codec)
            let run = TestEnvironment.run([
                TestEnvironment.mattebox, "record", "--cameras", config.path, "--duration", "1.5", "--codec", codec,
                "--container", codec == "hevc" ? "mov" : "mp4", "-o", out.path, "--json",
            ])
            #expect(run.status == 0, "\(run.errors)")
            let movie = json(run.output)["movie"] as? [String: Any] ?? [:]
            let path = try #require(movie["path"] as? String)
            #expect(movie["complete"] as? Bool == true && movie["ending"] as? String == "durationReached")
            #expect(path.hasSuffix(codec == "hevc" ? ".mov" : ".mp4"))
            let probe = try MovieProbe.read(path)
            #expect(probe.codec == codec)
            #expect(abs(probe.duration - 1.5) <= 1.0 / 30 + 0.002, "\(probe.duration)")
            #expect(probe.frames == movie["frames"] as? Int && probe.frames >= 25)
            if codec == "hevc" { #expect(probe.streamTags.first == "hvc1", "Apple's players want hvc1") }
            // inspect reads the fragments as ffprobe does: the same frames and length.
            let inspected = json(TestEnvironment.run([TestEnvironment.mattebox, "inspect", path, "--json"]).output)["movie"] as? [String: Any] ?? [:]
            #expect(inspected["videoFrames"] as? Int == probe.frames && inspected["fragmented"] as? Bool == true, "\(inspected)")
            #expect(abs((inspected["duration"] as? Double ?? 0) - probe.duration) <= 1.0 / 30, "\(inspected)")
        }
    }

    @Test func inspectReadsALongOrCutMovieFromItsBoxes() throws {
        let (config, folder) = try replayConfig()
        let run = TestEnvironment.run([TestEnvironment.mattebox, "record", "--cameras", config.path, "--duration", "1", "-o", folder.path, "--json"])
        let path = try #require(json(run.output)["movie"].flatMap { ($0 as? [String: Any])?["path"] as? String }, "\(run.errors)")
        let before = json(TestEnvironment.run([TestEnvironment.mattebox, "inspect", path, "--json"]).output)["movie"] as? [String: Any] ?? [:]
        // The same movie followed by a 64 GiB 'mdat' (sparse on disk): more than this machine's
        // memory, so it is only inspected if media data is skipped rather than read.
        let long = folder.appendingPathComponent("long.mp4")
        try FileManager.default.copyItem(atPath: path, toPath: long.path)
        let handle = try FileHandle(forWritingTo: long)
        let end = try handle.seekToEnd()
        let mediaBytes: UInt64 = 64 << 30
        try handle.write(contentsOf: Data([0, 0, 0, 1]) + Data("mdat".utf8) + withUnsafeBytes(of: (mediaBytes + 16).bigEndian) { Data($0) })
        try handle.truncate(atOffset: end + 16 + mediaBytes)
        try handle.close()
        defer { try? FileManager.default.removeItem(at: long) }
        let inspected = TestEnvironment.run([TestEnvironment.mattebox, "inspect", long.path, "--json"])
        #expect(inspected.status == 0, "\(inspected.errors)")
        let report = json(inspected.output)
        let movie = report["movie"] as? [String: Any] ?? [:]
        #expect(report["bytes"] as? Int == Int(end + 16 + mediaBytes))
        #expect(movie["videoFrames"] as? Int == before["videoFrames"] as? Int && (before["videoFrames"] as? Int ?? 0) >= 25, "\(movie)")
        #expect(movie["duration"] as? Double == before["duration"] as? Double, "\(movie)")

        // Cut inside its last fragment's media (the last box is FFmpeg's small 'mfra'), as a kill
        // leaves it: summarised up to the last whole fragment, saying where it was cut.
        let recording = try Data(contentsOf: URL(fileURLWithPath: path))
        let cut = folder.appendingPathComponent("cut.mp4")
        try recording.prefix(recording.count - 2000).write(to: cut)
        let cutRun = TestEnvironment.run([TestEnvironment.mattebox, "inspect", cut.path, "--json"])
        #expect(cutRun.status == 0, "\(cutRun.errors)")
        let cutMovie = json(cutRun.output)["movie"] as? [String: Any] ?? [:]
        let whole = before["videoFrames"] as? Int ?? 0, kept = cutMovie["videoFrames"] as? Int ?? -1
        #expect((cutMovie["cutOffAt"] as? Int ?? .max) < recording.count - 2000, "\(cutMovie)")
        let probed = try MovieProbe.read(cut.path).frames
        // A fragment starts at each keyframe, and mbx_movie.c puts one every second (30 frames
        // here), so the cut loses the last fragment: at most one second of frames, plus one.
        let framesPerFragment = 30
        #expect(kept < whole && kept >= whole - framesPerFragment - 1 && kept <= probed, "\(kept) of \(whole) frames; ffprobe reads \(probed)")
    }

    @Test func aKilledRecordingLeavesAMoviePlayersRead() throws {
        let (config, folder) = try replayConfig()
        let out = folder.appendingPathComponent("killed")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestEnvironment.mattebox)
        process.arguments = ["record", "--cameras", config.path, "-o", out.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Killed once a second of fragments is on disk (by ffprobe's count, not the clock: the machine may be busy).
        #expect(waitForPartialMovie(in: out, frames: 30), "no fragments were written")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path)
        let partial = try #require(names.first { $0.hasSuffix(".recording.mp4") }, "\(names)")
        #expect(!names.contains { $0.hasSuffix(".mp4") && !$0.hasSuffix(".recording.mp4") })
        let probe = try MovieProbe.read(out.appendingPathComponent(partial).path)
        #expect(probe.codec == "h264" && probe.frames >= 30, "fragments up to the kill: \(probe.frames) frames")
        // inspect reads it too, up to its last whole fragment.
        let inspected = TestEnvironment.run([TestEnvironment.mattebox, "inspect", out.appendingPathComponent(partial).path, "--json"])
        let frames = (json(inspected.output)["movie"] as? [String: Any])?["videoFrames"] as? Int ?? -1
        #expect(inspected.status == 0 && frames <= probe.frames && probe.frames - frames <= 30, "\(inspected.errors) \(frames) of \(probe.frames)")
    }

    @Test func aFullDiskEndsTheRecordingAndKeepsWhatWasWritten() throws {
        let (config, folder) = try replayConfig()
        let out = folder.appendingPathComponent("full")
        // A 64 KiB file-size limit stands in for a full disk: writes past it fail (EFBIG).
        let run = TestEnvironment.run([
            "/bin/bash", "-c", "ulimit -f 64; exec \"$0\" \"$@\"", TestEnvironment.mattebox, "record", "--cameras", config.path,
            "-o", out.path, "--json",
        ])
        #expect(run.status == 1, "an unfinished movie is a failure: \(run.errors)")
        let movie = json(run.output)["movie"] as? [String: Any] ?? [:]
        #expect(movie["ending"] as? String == "failed" && movie["complete"] as? Bool == false)
        #expect((movie["error"] as? String ?? "").contains("File too large"), "\(movie)")
        let path = try #require(movie["path"] as? String)
        #expect(path.hasSuffix(".recording.mp4") && run.errors.contains("what was written is kept"))
        #expect(try MovieProbe.read(path).frames >= 30, "the fragments before the failure play")
    }

    @Test func ctrlCFinishesTheMovie() throws {
        let (config, folder) = try replayConfig()
        let out = folder.appendingPathComponent("interrupted")
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: TestEnvironment.mattebox)
        process.arguments = ["record", "--cameras", config.path, "-o", out.path, "--json"]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        #expect(waitForPartialMovie(in: out, frames: 15), "the recording did not start")
        kill(process.processIdentifier, SIGINT)
        let report = json(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let movie = report["movie"] as? [String: Any] ?? [:]
        #expect(movie["ending"] as? String == "stopped" && movie["complete"] as? Bool == true, "\(report)")
        let probe = try MovieProbe.read(try #require(movie["path"] as? String))
        #expect(probe.frames == movie["frames"] as? Int)
    }

    @Test func badOptionsAreRefusedBeforeTheCameraOpens() throws {
        let output = try TestEnvironment.scratchDirectory("refused").appendingPathComponent("out").path
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: output).deletingLastPathComponent().path) }
        let run = TestEnvironment.run([TestEnvironment.mattebox, "record", "--codec", "vp9", "-o", output])
        #expect(run.status == 64 && run.errors.contains("--codec takes h264 or hevc"), "\(run.errors)")
        let live = TestEnvironment.run([
            TestEnvironment.mattebox, "capture", "--live", "--live-format", "motion-photo", "--format", "png", "-o", output,
        ])
        #expect(live.status == 64 && live.errors.contains("Motion Photo is a JPEG or HEIC"), "\(live.errors)")
        #expect(!FileManager.default.fileExists(atPath: output), "nothing was made")
    }

    @Test func captureLiveWritesBothPairings() throws {
        let (config, folder) = try replayConfig()
        let out = folder.appendingPathComponent("live")
        let run = TestEnvironment.run([
            TestEnvironment.mattebox, "capture", "--cameras", config.path, "--live", "--live-format", "both", "--count", "2",
            "--interval", "0.3", "-o", out.path, "--json",
        ])
        #expect(run.status == 0, "\(run.errors)")
        let photos = json(run.output)["photos"] as? [[String: Any]] ?? []
        #expect(photos.count == 2)
        for photo in photos {
            let live = photo["livePhoto"] as? [String: Any] ?? [:]
            let identifier = try #require(live["contentIdentifier"] as? String)
            let files = live["files"] as? [String] ?? []
            let mov = try #require(files.first { $0.hasSuffix(".mov") })
            let still = try #require(photo["output"] as? String)
            #expect(still.hasSuffix(".MP.jpg") && files.contains(still))
            #expect(MovieProbe.exiftool("MakerNotes:MediaGroupUUID", still) == identifier)
            #expect(MovieProbe.exiftool("Keys:ContentIdentifier", mov) == identifier)
            #expect(MovieProbe.exiftool("XMP-GCamera:MotionPhoto", still) == "1")
        }
    }
}

/// A Live Photo taken by `capture --live`, then inspected and processed: the
/// pairing is shown, and survives a rewrite of the still.
@Suite struct LivePhotoProcessTests {
    private func capture(_ format: String, liveFormat: String) throws -> (still: String, files: [String], identifier: String, folder: URL) {
        let folder = try TestEnvironment.scratchDirectory("live-process")
        let run = TestEnvironment.run([
            TestEnvironment.mattebox, "capture", "--live", "--live-format", liveFormat, "--format", format, "-o",
            folder.appendingPathComponent("taken").path, "--json",
        ])
        #expect(run.status == 0, "\(run.errors)")
        let report = (try? JSONSerialization.jsonObject(with: Data(run.output.utf8))) as? [String: Any] ?? [:]
        let photo = (report["photos"] as? [[String: Any]])?.first ?? [:]
        let live = photo["livePhoto"] as? [String: Any] ?? [:]
        return (
            try #require(photo["output"] as? String), live["files"] as? [String] ?? [],
            try #require(live["contentIdentifier"] as? String), folder
        )
    }

    private func json(_ run: TestEnvironment.CommandResult) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(run.output.utf8))) as? [String: Any] ?? [:]
    }

    @Test func inspectShowsTheAppleAndGooglePairings() throws {
        let (still, files, identifier, _) = try capture("jpeg", liveFormat: "both")
        let report = json(TestEnvironment.run([TestEnvironment.mattebox, "inspect", still, "--json"]))
        let live = report["livePhoto"] as? [String: Any] ?? [:]
        #expect(live["contentIdentifier"] as? String == identifier)
        let paired = live["pairedMovie"] as? [String: Any] ?? [:]
        #expect(paired["identifierMatches"] as? Bool == true && files.contains(paired["path"] as? String ?? "-"))
        let motion = live["motionPhoto"] as? [String: Any] ?? [:]
        let offset = try #require(motion["offset"] as? Int)
        let length = try #require(motion["length"] as? Int)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: still))
        #expect(offset + length == bytes.count && bytes[offset + 4..<offset + 8] == Data("ftyp".utf8))
        let movieReport = json(TestEnvironment.run([TestEnvironment.mattebox, "inspect", try #require(paired["path"] as? String), "--json"]))
        let movie = movieReport["movie"] as? [String: Any] ?? [:]
        #expect(movie["contentIdentifier"] as? String == identifier)
        let stillTime = try #require(movie["stillImageTime"] as? Double)
        #expect(stillTime > 1 && stillTime < (movie["duration"] as? Double ?? 0))
    }

    @Test func processKeepsTheIdentifierAndRebuildsTheMotionPhoto() throws {
        let (still, _, identifier, folder) = try capture("jpeg", liveFormat: "motion-photo")
        let original = try Data(contentsOf: URL(fileURLWithPath: still))
        // Pixels change (grayscale, invert): the JPEG is encoded again and the movie appended again.
        let out = folder.appendingPathComponent("processed")
        let run = TestEnvironment.run([
            TestEnvironment.mattebox, "process", still, "-o", out.path, "--pipeline",
            TestEnvironment.packageRoot.appendingPathComponent("Samples/pipelines/sample-plugins.yaml").path,
        ])
        #expect(run.status == 0, "\(run.errors)")
        let rewritten = out.appendingPathComponent(URL(fileURLWithPath: still).lastPathComponent)
        let bytes = try Data(contentsOf: rewritten)
        #expect(bytes != original)
        #expect(MovieProbe.exiftool("MakerNotes:MediaGroupUUID", rewritten.path) == identifier)
        let report = json(TestEnvironment.run([TestEnvironment.mattebox, "inspect", rewritten.path, "--json"]))
        let motion = (report["livePhoto"] as? [String: Any])?["motionPhoto"] as? [String: Any] ?? [:]
        let length = try #require(motion["length"] as? Int)
        let embedded = folder.appendingPathComponent("rebuilt.mp4")
        try bytes.suffix(length).write(to: embedded)
        #expect(try MovieProbe.read(embedded.path).frames > 60, "the movie came along")

        // Written as HEIC, the movie follows in an `mpvd` box and the directory names a HEIC primary.
        let heicPath = try processed(still, as: "heic", in: folder)
        let movie = Data(bytes.suffix(length))
        #expect(try MovieProbe.exiftoolBinary("MotionPhotoVideo", heicPath, to: folder.appendingPathComponent("heic.mp4")) == movie)
        #expect(MovieProbe.exiftool("XMP-GCamera:MotionPhoto", heicPath) == "1")
        #expect(MovieProbe.exiftool("XMP-Container:DirectoryItemMime", heicPath) == "image/heic\nvideo/mp4")
        #expect(MovieProbe.exiftool("XMP-Container:DirectoryItemPadding", heicPath) == "8\n0")
        #expect(MovieProbe.exiftool("MakerNotes:MediaGroupUUID", heicPath) == identifier)

        // A PNG cannot carry it: a note says so, and its XMP no longer claims a movie.
        let png = TestEnvironment.run([TestEnvironment.mattebox, "process", still, "-o", folder.appendingPathComponent("png").path, "--format", "png"])
        #expect(png.status == 0 && png.output.contains("Motion Photo's movie"), "\(png.output)")
        let pngPath = try outputs(in: folder.appendingPathComponent("png"), ending: ".png")
        #expect(MovieProbe.exiftool("XMP-GCamera:MotionPhoto", pngPath) == "0")
    }

    @Test func captureWritesAHEICMotionPhoto() throws {
        let (still, files, identifier, folder) = try capture("heic", liveFormat: "motion-photo")
        #expect(still.hasSuffix(".MP.heic") && files == [still])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: still))
        let movie = try MovieProbe.exiftoolBinary("MotionPhotoVideo", still, to: folder.appendingPathComponent("embedded.mp4"))
        #expect(bytes.suffix(movie.count) == movie, "the movie ends the file, where the directory's length from the end finds it")
        #expect(MovieProbe.exiftool("XMP-Container:DirectoryItemLength", still) == "0\n\(movie.count)")
        #expect(MovieProbe.exiftool("XMP-Container:DirectoryItemPadding", still) == "8\n0")
        #expect(MovieProbe.exiftool("MakerNotes:MediaGroupUUID", still) == identifier)
        let probe = try MovieProbe.read(folder.appendingPathComponent("embedded.mp4").path)
        #expect(probe.codec == "h264" && probe.frames > 60)
        let stillTime = try #require(Double(MovieProbe.exiftool("XMP-GCamera:MotionPhotoPresentationTimestampUs", still))) / 1e6
        #expect(stillTime > 1 && stillTime < probe.duration, "the still's time falls inside the movie")
        #expect(TestEnvironment.run(["/usr/bin/heif-info", still]).status == 0, "libheif opens it")
    }

    /// A Samsung-style HEIC Motion Photo (the `mpvd` box holds the MP4 and
    /// then a `sefd` trailer of offsets in the original file) rewritten as
    /// HEIC and as JPEG: the movie comes along, the trailer is named in a note.
    @Test func processKeepsAHEICMotionPhotosMovieAsHEICOrJPEG() throws {
        let (still, _, _, folder) = try capture("heic", liveFormat: "motion-photo")
        let original = try Data(contentsOf: URL(fileURLWithPath: still))
        let movie = try MovieProbe.exiftoolBinary("MotionPhotoVideo", still, to: folder.appendingPathComponent("movie.mp4"))
        let heif = original.prefix(original.count - movie.count - 8)
        let trailer = Data([0, 0, 0, 20]) + Data("sefd".utf8) + Data(repeating: 7, count: 12)
        let size = UInt32(8 + movie.count + trailer.count)
        let samsung = folder.appendingPathComponent("20261124_101010.heic")
        try (heif + Data([UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)])
            + Data("mpvd".utf8) + movie + trailer).write(to: samsung)

        let run = TestEnvironment.run([
            TestEnvironment.mattebox, "process", samsung.path, "-o", folder.appendingPathComponent("heic").path, "--format", "heic", "--json",
        ])
        #expect(run.status == 0 && run.output.contains("'sefd' trailer"), "\(run.output)")
        let heicPath = try outputs(in: folder.appendingPathComponent("heic"), ending: ".heic")
        #expect(try MovieProbe.exiftoolBinary("MotionPhotoVideo", heicPath, to: folder.appendingPathComponent("kept.mp4")) == movie)
        #expect(MovieProbe.exiftool("XMP-Container:DirectoryItemLength", heicPath) == "0\n\(movie.count)")

        let jpegPath = try processed(samsung.path, as: "jpeg", in: folder)
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: jpegPath))
        #expect(jpeg.starts(with: [0xFF, 0xD8]) && jpeg.suffix(movie.count) == movie)
        #expect(MovieProbe.exiftool("XMP-Container:DirectoryItemMime", jpegPath) == "image/jpeg\nvideo/mp4")
        #expect(MovieProbe.exiftool("XMP-Container:DirectoryItemPadding", jpegPath) == "0\n0")
        let report = json(TestEnvironment.run([TestEnvironment.mattebox, "inspect", jpegPath, "--json"]))
        let motion = (report["livePhoto"] as? [String: Any])?["motionPhoto"] as? [String: Any] ?? [:]
        #expect(motion["offset"] as? Int == jpeg.count - movie.count && motion["length"] as? Int == movie.count)
    }

    /// Apple's pairing across a batch: the movie beside a still with its name
    /// and content identifier is copied, unchanged, beside the output.
    @Test func processCarriesTheLivePhotoMovieBesideTheStill() throws {
        let (still, files, identifier, folder) = try capture("heic", liveFormat: "apple")
        let movie = try #require(files.first { $0.hasSuffix(".mov") })
        let inputs = folder.appendingPathComponent("iphone")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: still, toPath: inputs.appendingPathComponent("IMG_0001.HEIC").path)
        try FileManager.default.copyItem(atPath: movie, toPath: inputs.appendingPathComponent("IMG_0001.MOV").path)
        // A movie with another photo's name but not its identifier is not its Live Photo movie.
        try FileManager.default.copyItem(atPath: still, toPath: inputs.appendingPathComponent("IMG_0002.HEIC").path)
        // (The same movie, its identifier's bytes replaced by another UUID of the same length.)
        var other = try Data(contentsOf: URL(fileURLWithPath: movie))
        let stored = try #require(other.range(of: Data(identifier.utf8)))
        other.replaceSubrange(stored, with: Data("00000000-0000-0000-0000-000000000000".utf8))
        try other.write(to: inputs.appendingPathComponent("IMG_0002.MOV"))

        let out = folder.appendingPathComponent("processed")
        let run = TestEnvironment.run([TestEnvironment.mattebox, "process", inputs.path, "-o", out.path, "--format", "heic", "--json"])
        #expect(run.status == 0, "\(run.errors)")
        let copied = out.appendingPathComponent("IMG_0001.MOV")
        #expect(try Data(contentsOf: copied) == Data(contentsOf: URL(fileURLWithPath: movie)), "copied byte for byte")
        #expect(MovieProbe.exiftool("Keys:ContentIdentifier", copied.path) == identifier)
        #expect(MovieProbe.exiftool("MakerNotes:MediaGroupUUID", out.appendingPathComponent("IMG_0001.heic").path) == identifier)
        let inspected = json(TestEnvironment.run([TestEnvironment.mattebox, "inspect", out.appendingPathComponent("IMG_0001.heic").path, "--json"]))
        let paired = (inspected["livePhoto"] as? [String: Any])?["pairedMovie"] as? [String: Any] ?? [:]
        #expect(paired["identifierMatches"] as? Bool == true)
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("IMG_0002.MOV").path))
        #expect(run.output.contains("IMG_0002.MOV beside it was not copied: its content identifier (00000000"), "\(run.output)")

        // Written beside its input, the still pairs with the movie there: nothing is copied over it.
        let again = TestEnvironment.run([
            TestEnvironment.mattebox, "process", inputs.appendingPathComponent("IMG_0001.HEIC").path, "-o", inputs.path, "--format", "jpeg",
        ])
        #expect(again.status == 0, "\(again.errors)")
        #expect(try Data(contentsOf: inputs.appendingPathComponent("IMG_0001.MOV")) == Data(contentsOf: URL(fileURLWithPath: movie)))
    }

    /// `still` processed into `<folder>/<format>`, and the file written there.
    private func processed(_ still: String, as format: String, in folder: URL) throws -> String {
        let out = folder.appendingPathComponent(format)
        let run = TestEnvironment.run([TestEnvironment.mattebox, "process", still, "-o", out.path, "--format", format])
        #expect(run.status == 0, "\(run.errors)")
        return try outputs(in: out, ending: "." + format.replacingOccurrences(of: "jpeg", with: "jpg"))
    }

    private func outputs(in folder: URL, ending: String) throws -> String {
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasSuffix(ending) })
        return folder.appendingPathComponent(name).path
    }

    /// Issue 57 (4): FFmpeg's own lines (97 of "[swscaler] deprecated pixel format used") went straight to
    /// the terminal, even with -q. They go through the project's log now: none with -q, FFmpeg's with -vv.
    @Test func quietMeansQuietAndFFmpegSpeaksOnlyWhenAsked() throws {
        let folder = try TestEnvironment.scratchDirectory("quiet-live")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cameras = TestEnvironment.packageRoot.appendingPathComponent("Samples/cameras.yaml").path
        let quiet = TestEnvironment.run([
            TestEnvironment.mattebox, "capture", "--cameras", cameras, "--front", "--live", "-o", folder.appendingPathComponent("q").path, "-q",
        ])
        #expect(quiet.status == 0, "\(quiet.errors)")
        #expect(quiet.output.isEmpty && quiet.errors.isEmpty, "-q printed: \(quiet.output)\(quiet.errors.prefix(400))")
        let plain = TestEnvironment.run([
            TestEnvironment.mattebox, "capture", "--cameras", cameras, "--front", "--live", "-o", folder.appendingPathComponent("p").path,
        ])
        #expect(plain.status == 0 && !plain.errors.contains("swscaler") && !plain.errors.contains("libx264"), "\(plain.errors.prefix(400))")
        let verbose = TestEnvironment.run([
            TestEnvironment.mattebox, "capture", "--cameras", cameras, "--front", "--live", "-o", folder.appendingPathComponent("v").path, "-vv",
        ])
        #expect(verbose.status == 0 && verbose.errors.contains("ffmpeg: debug: [libx264"), "\(verbose.errors.suffix(400))")
    }
}
