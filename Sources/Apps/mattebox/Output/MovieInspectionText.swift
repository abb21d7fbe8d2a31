import MatteboxMovie

/// A movie as `inspect` shows it.
enum MovieInspectionText {
    static func render(_ summary: MovieSummary, path: String, bytes: Int) -> String {
        var lines = ["\(path) (\(bytes) bytes; movie)"]
        lines.append(String(format: "duration: %.3f s", summary.duration) + (summary.fragmented ? " (fragmented)" : ""))
        if let cut = summary.cutOffAt {
            lines.append("cut off: the file ends inside a box at byte \(cut) (a recording that was not finished?); frames and length are those of the whole fragments before it")
        }
        if let coding = summary.videoCoding {
            lines.append("video: \(coding), \(summary.videoFrames ?? 0) frames")
        }
        if let identifier = summary.contentIdentifier { lines.append("Live Photo: content identifier \(identifier)") }
        if let still = summary.stillImageTime { lines.append(String(format: "still image time: %.3f s", still)) }
        return lines.joined(separator: "\n")
    }
}
