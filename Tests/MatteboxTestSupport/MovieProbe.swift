import Foundation

/// What FFmpeg's own `ffprobe` (Debian `ffmpeg`) reads in a movie: the
/// independent reader the movie tests check Mattebox's files with.
package struct MovieProbe {
    package var codec: String
    package var width: Int
    package var height: Int
    /// Frames decoded by ffprobe (-count_frames).
    package var frames: Int
    /// Seconds, as the container says.
    package var duration: Double
    /// Each video packet's presentation time, in file order.
    package var presentationTimes: [Double]
    /// The display matrix's rotation (ffprobe's sign: counter-clockwise degrees), if any.
    package var rotation: Double?
    /// Stream codec tags (e.g. avc1, mebx).
    package var streamTags: [String]

    /// Probes the whole file, or `length` bytes from `offset` (a movie inside another file).
    package static func read(_ path: String) throws -> MovieProbe {
        let streams = TestEnvironment.run([
            "/usr/bin/ffprobe", "-v", "error", "-count_frames", "-show_streams", "-show_format", "-of", "json", path,
        ])
        guard streams.status == 0, let data = streams.output.data(using: .utf8),
            let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let all = json["streams"] as? [[String: Any]],
            let video = all.first(where: { $0["codec_type"] as? String == "video" })
        else { throw ProbeError(message: "ffprobe cannot read \(path): \(streams.errors)") }
        let packets = TestEnvironment.run([
            "/usr/bin/ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time", "-of", "csv=p=0", path,
        ])
        let format = json["format"] as? [String: Any]
        let sideData = video["side_data_list"] as? [[String: Any]] ?? []
        return MovieProbe(
            codec: video["codec_name"] as? String ?? "",
            width: video["width"] as? Int ?? 0, height: video["height"] as? Int ?? 0,
            frames: Int(video["nb_read_frames"] as? String ?? "") ?? 0,
            duration: Double(format?["duration"] as? String ?? "") ?? 0,
            presentationTimes: packets.output.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) },
            rotation: sideData.compactMap { $0["rotation"] as? Double ?? ($0["rotation"] as? Int).map(Double.init) }.first,
            streamTags: all.compactMap { $0["codec_tag_string"] as? String })
    }

    package struct ProbeError: Error, CustomStringConvertible {
        package var message: String
        package var description: String { message }
    }

    /// The bytes of a binary tag as exiftool extracts them (`-b`), e.g. a HEIC Motion Photo's MotionPhotoVideo.
    package static func exiftoolBinary(_ tag: String, _ path: String, to destination: URL) throws -> Data {
        let result = TestEnvironment.run(["/bin/sh", "-c", "exec /usr/bin/exiftool -b -\(tag) \"$1\" > \"$2\"", "sh", path, destination.path])
        guard result.status == 0 else { throw ProbeError(message: "exiftool cannot extract \(tag) from \(path): \(result.errors)") }
        return try Data(contentsOf: destination)
    }

    /// exiftool's value of one tag (`-s3`), with `-ee` for timed metadata.
    package static func exiftool(_ tag: String, _ path: String, embedded: Bool = false) -> String {
        let result = TestEnvironment.run(["/usr/bin/exiftool", "-a", "-s3"] + (embedded ? ["-ee"] : []) + ["-" + tag, path])
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
