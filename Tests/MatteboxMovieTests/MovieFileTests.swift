import Foundation
import MatteboxMovie
import MatteboxPairedMedia
import MatteboxRuntime
import MatteboxTestSupport
import Testing

/// The movie layer on its own: frames in with their times, a movie out that
/// ffprobe and Mattebox's own box reader agree on, and damaged movies that
/// read as errors, never as crashes.
@Suite struct MovieFileTests {
    /// Ten 64x48 RGB frames a 30th of a second apart, the fourth one missing.
    private func frames() -> [MovieFrame] {
        [0, 1, 2, 4, 5, 6, 7, 8, 9, 10].map { (index: Int) -> MovieFrame in
            var bytes: [UInt8] = []
            for pixel in 0..<(64 * 48) { bytes += [UInt8((pixel + index * 8) % 256), UInt8(index * 20), 128] }
            return MovieFrame(bytes: bytes, timestamp: 5_000_000_000 + UInt64(index) * 33_333_333, input: .rgb24)
        }
    }

    private let format = MovieFormat(width: 64, height: 48, input: .rgb24, framesPerSecond: 30, rotationDegrees: 90)

    @Test func aLivePhotoMovieCarriesItsIdentifierAndStillTime() throws {
        let folder = try TestEnvironment.scratchDirectory("movie-file")
        let path = folder.appendingPathComponent("live.mov").path
        let frames = frames()
        let written = try LivePhotoMovie.write(
            frames: frames, stillTimestamp: frames[5].timestamp, contentIdentifier: "ABC-123", format: format, settings: MovieSettings(),
            to: path)
        #expect(written.frames == 10)
        let summary = try MovieInspector.inspect(Array(try Data(contentsOf: URL(fileURLWithPath: path))), name: path)
        #expect(summary.contentIdentifier == "ABC-123" && summary.videoFrames == 10 && summary.videoCoding == "avc1")
        #expect(abs((summary.stillImageTime ?? -1) - 6.0 / 30) < 0.001, "\(String(describing: summary.stillImageTime))")
        #expect(try MovieInspector.inspect(at: URL(fileURLWithPath: path)) == summary, "read from disk without its media data, it says the same")
        let probe = try MovieProbe.read(path)
        #expect(probe.frames == 10 && probe.streamTags.contains("mebx"))
        #expect(probe.presentationTimes.count == 10 && abs(probe.presentationTimes[3] - 4.0 / 30) < 0.001, "a lost frame leaves a gap")
        #expect(probe.rotation.map { (Int($0) % 360 + 360) % 360 } == 270, "clockwise 90 is ffprobe's -90")
        // Never over an existing file.
        #expect(throws: MatteboxError.self) {
            try LivePhotoMovie.write(
                frames: frames, stillTimestamp: 0, contentIdentifier: "x", format: format, settings: MovieSettings(), to: path)
        }
        #expect(throws: MatteboxError.self) { try MovieRecorder(path: path, format: format, settings: MovieSettings()) }
    }

    @Test func damagedMoviesAreErrorsNotCrashes() throws {
        let folder = try TestEnvironment.scratchDirectory("movie-damaged")
        let path = folder.appendingPathComponent("live.mov").path
        let frames = frames()
        _ = try LivePhotoMovie.write(
            frames: frames, stillTimestamp: frames[2].timestamp, contentIdentifier: "ID", format: format, settings: MovieSettings(), to: path)
        let movie = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        var generator = SeededGenerator("damaged Live Photo movies")
        var errors = 0
        for cut in stride(from: 0, to: movie.count, by: max(1, movie.count / 97)) {
            if (try? MovieInspector.inspect(Array(movie[..<cut]), name: "cut")) == nil { errors += 1 }
        }
        for _ in 0..<300 {
            var damaged = movie
            for _ in 0..<4 { damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
            _ = try? MovieInspector.inspect(damaged, name: "damaged")
        }
        #expect(errors > 50, "cut movies are refused (\(errors))")
        // Read from disk with the media data skipped: the same for cut and damaged files.
        let onDisk = folder.appendingPathComponent("damaged.mov")
        var fileErrors = 0
        for cut in stride(from: 0, to: movie.count, by: max(1, movie.count / 23)) {
            try Data(movie[..<cut]).write(to: onDisk)
            if (try? MovieInspector.inspect(at: onDisk)) == nil { fileErrors += 1 }
        }
        for _ in 0..<100 {
            var damaged = movie
            for _ in 0..<4 { damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
            try Data(damaged).write(to: onDisk)
            _ = try? MovieInspector.inspect(at: onDisk)
        }
        #expect(fileErrors > 12, "cut movie files are refused (\(fileErrors))")
    }

    /// Found: a recording cut right after a `moof`, or inside the next box's header, was reported
    /// whole ("2.000 s, 60 frames") for media that is not in the file.
    @Test func aRecordingCutAfterAFragmentHeaderSaysCutAndCountsOnlyWhatIsThere() throws {
        let folder = try TestEnvironment.scratchDirectory("movie-cut-moof")
        let path = folder.appendingPathComponent("rec.mp4").path
        let recorder = try MovieRecorder(path: path, format: format, settings: MovieSettings())
        // 75 frames a 30th of a second apart: fragments start at each keyframe (about one a second).
        for index in 0..<75 {
            var bytes: [UInt8] = []
            for pixel in 0..<(64 * 48) { bytes += [UInt8((pixel + index * 8) % 256), UInt8(index % 256), 128] }
            recorder.append(MovieFrame(bytes: bytes, timestamp: 1_000_000_000 + UInt64(index) * 33_333_333, input: .rgb24))
        }
        let outcome = recorder.finish()
        #expect(outcome.complete, "\(outcome.error ?? "")")
        let movie = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        // The top-level boxes: where each moof ends.
        var offset = 0, moofEnds: [Int] = []
        while offset + 8 <= movie.count {
            let size = Int(movie[offset]) << 24 | Int(movie[offset + 1]) << 16 | Int(movie[offset + 2]) << 8 | Int(movie[offset + 3])
            if String(decoding: movie[(offset + 4)..<(offset + 8)], as: UTF8.self) == "moof" { moofEnds.append(offset + size) }
            guard size >= 8 else { break }
            offset += size
        }
        #expect(moofEnds.count >= 2, "the recording has several fragments: \(moofEnds)")
        let whole = try MovieInspector.inspect(at: URL(fileURLWithPath: path))
        #expect(whole.cutOffAt == nil && whole.videoFrames == 75)
        let cutFile = folder.appendingPathComponent("cut.mp4")
        for cut in [moofEnds[1], moofEnds[1] + 4] {
            try Data(movie[..<cut]).write(to: cutFile)
            let summary = try MovieInspector.inspect(at: cutFile)
            #expect(summary.cutOffAt != nil, "cut at \(cut): said whole")
            #expect((summary.videoFrames ?? .max) < (whole.videoFrames ?? 0) && summary.duration < whole.duration, "cut at \(cut): \(summary)")
            // What is left is exactly the first fragment, as ffprobe plays it.
            let probed = try MovieProbe.read(cutFile.path).frames
            #expect(summary.videoFrames == probed, "cut at \(cut): \(summary.videoFrames ?? -1) frames, ffprobe \(probed)")
        }
    }

    /// Movie errors name the movie, not HEIF (the box layer is shared).
    @Test func movieErrorsSpeakOfMoviesNotHEIF() throws {
        var box: [UInt8] = [0, 0, 0, 16] + Array("moov".utf8) + [0, 0, 0, 99] + Array("mvhd".utf8)
        box += []
        do {
            _ = try MovieInspector.inspect(box, name: "clip.mov")
            Issue.record("a box larger than its parent was read")
        } catch {
            #expect("\(error)".contains("clip.mov") && !"\(error)".contains("HEIF"), "\(error)")
        }
    }
}
