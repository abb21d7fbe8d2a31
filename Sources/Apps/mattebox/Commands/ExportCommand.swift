import ArgumentParser
import Foundation
import MatteboxCore
import MatteboxHEIF
import MatteboxImageIO
import MatteboxRuntime

/// `mattebox export`: packages a photo and its depth and mattes into one HEIF.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Package a photo and its depth, disparity and mattes into one HEIF file.",
        discussion: """
            Auxiliary images must cover the same scene as the photo's stored pixels (any resolution, \
            same aspect ratio). Depth and disparity may be 8-bit, 16-bit (depth in millimetres) or \
            float (metres, or 1/m for disparity); they are stored as 8-bit grey with their range in \
            the depth representation SEI and Apple's XMP, as iPhones do. 8-bit depth without \
            --depth-range is recorded as relative (0...1). A HEIC input keeps the auxiliary images \
            it already has unless one is given here.
            """)

    @OptionGroup var verbosity: Verbosity
    @Argument(help: "The photo (JPEG, PNG, TIFF, WebP or HEIC), or - for standard input.") var photo: String
    @Option(name: .shortAndLong, help: "The HEIF file to write (.heic or .heif), a folder to write NAME.heic in, or - for standard output.")
    var output: String
    @Option(help: "A depth map (distance).") var depth: String?
    @Option(help: "A disparity map (1/distance).") var disparity: String?
    @Option(help: "A portrait effects matte.") var portraitMatte: String?
    @Option(help: ArgumentHelp("A semantic matte: " + ExportCommand.matteRoles.keys.sorted().map { "\($0)=FILE" }.joined(separator: ", ") + "."))
    var matte: [String] = []
    @Option(help: "The range 8- or 16-bit depth/disparity values map onto, MIN:MAX (metres, or 1/m).")
    var depthRange: String?
    @Option(help: "HEVC quality, 1-100.") var quality: Int = HEIFWriteOptions.defaultQuality
    @Option(help: "x265 preset (ultrafast ... slower); default follows the capture quality, 'fast'.")
    var preset: String?
    @Option(help: "Longest side of the thumbnail; 0 for none.") var thumbnailSize: Int = 320
    @Flag(help: "Replace the output file if it exists (never an input).") var overwrite = false
    @Flag(help: "Print a JSON report.") var json = false

    static let matteRoles = Dictionary(uniqueKeysWithValues: ImageRole.mattesByShortName.filter { $0.role != .portraitMatte }.map { ($0.name, $0.role) })

    func run() throws {
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be 1...100") }
        if let preset, !OutputRequest.encoderPresets.contains(preset) {
            throw ValidationError("--preset must be one of \(OutputRequest.encoderPresets.joined(separator: ", "))")
        }
        let range = try depthRange.map(Self.parseRange)
        let inputs = try auxiliaryInputs()
        var spool: URL?
        defer { StandardStreams.cleanUp(spool) }
        let input = try StandardStreams.input(photo) {
            spool = try StandardStreams.temporaryFolder()
            return spool!
        }
        let target = try OutputPath.resolve(
            output, defaultName: input.deletingPathExtension().lastPathComponent + ".heic", extensions: ["heic", "heif"],
            what: "export's HEIF", inputs: [input] + inputs.map { URL(fileURLWithPath: $0.1) }, overwrite: overwrite)

        let clock = ContinuousClock.now
        var photo = try ImageDecoder.decodePhoto(at: input)
        for (role, path) in inputs {
            let image = try ImageDecoder.decodeAuxiliaryImage(at: URL(fileURLWithPath: path))
            try Self.checkAspect(of: image, role: role, file: path, against: photo)
            photo.setAuxiliary(image, for: role)
            if let range, role == .depth || role == .disparity, image.format != .float32 {
                let kind: DepthRepresentation.Kind = role == .depth ? .uniformZ : .uniformDisparity
                photo.metadata.auxiliaryInfo[role] = AuxiliaryImageInfo(
                    depth: kind == .uniformZ
                        ? DepthRepresentation(kind: kind, nearestDepth: range.lowerBound, farthestDepth: range.upperBound)
                        : DepthRepresentation(kind: kind, disparityMinimum: range.lowerBound, disparityMaximum: range.upperBound))
            }
        }
        let options = HEIFWriteOptions(quality: quality, preset: preset, thumbnailSize: thumbnailSize)
        let data = try HEIFWriter.encode(photo, options: options)
        try OutputPath.write(data, to: target)
        guard case .file(let destination, _) = target else { return }
        let report = ExportReport(
            input: self.photo, output: destination.path, bytes: data.count,
            seconds: clock.secondsSince,
            auxiliary: photo.auxiliary.keys.sorted().map { role in
                let image = photo.auxiliary[role]!
                return ExportReport.Auxiliary(
                    role: role.rawValue, type: AuxiliaryType.urn(for: role, info: photo.metadata.auxiliaryInfo[role]),
                    width: image.width, height: image.height)
            })
        if json {
            try JSONOutput.print(report)
        } else if !verbosity.quiet {
            print("\(report.output): \(report.bytes) bytes, primary \(photo.primary.width)x\(photo.primary.height)")
            for aux in report.auxiliary { print("  \(aux.role) \(aux.width)x\(aux.height) as \(aux.type)") }
        }
    }

    private func auxiliaryInputs() throws -> [(ImageRole, String)] {
        var inputs: [(ImageRole, String)] = []
        if let depth { inputs.append((.depth, depth)) }
        if let disparity { inputs.append((.disparity, disparity)) }
        if let portraitMatte { inputs.append((.portraitMatte, portraitMatte)) }
        for item in matte {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let role = Self.matteRoles[parts[0]] else {
                throw ValidationError(
                    "--matte takes KIND=FILE with KIND one of \(Self.matteRoles.keys.sorted().joined(separator: ", ")), not \(item)")
            }
            inputs.append((role, parts[1]))
        }
        return inputs
    }

    static func parseRange(_ text: String) throws -> ClosedRange<Double> {
        let parts = text.split(separator: ":").map { Double($0) }
        guard parts.count == 2, let low = parts[0], let high = parts[1], low.isFinite, high.isFinite, low < high else {
            throw ValidationError("--depth-range takes MIN:MAX with MIN < MAX, e.g. 0.5:4, not \(text)")
        }
        return low...high
    }

    /// An auxiliary image of another aspect ratio cannot line up with the photo.
    static func checkAspect(of image: PixelImage, role: ImageRole, file: String, against photo: Photo) throws {
        let photoAspect = Double(photo.primary.width) / Double(photo.primary.height)
        let aspect = Double(image.width) / Double(image.height)
        guard abs(aspect / photoAspect - 1) > 0.02 else { return }
        var hint = "give a \(role) of the same aspect ratio as the photo's stored pixels"
        if abs(aspect * photoAspect - 1) < 0.02 {
            hint = "it looks turned by 90°: the photo is stored \(photo.primary.width)x\(photo.primary.height) with EXIF orientation \(photo.metadata.orientation.rawValue); match the stored pixels, or turn the photo upright first (mattebox process --pipeline Samples/pipelines/upright.yaml)"
        }
        throw MatteboxError(
            "\(file): \(role) is \(image.width)x\(image.height), which does not line up with the \(photo.primary.width)x\(photo.primary.height) photo",
            hint: hint)
    }
}

/// What `export --json` prints.
struct ExportReport: Codable {
    struct Auxiliary: Codable {
        var role: String
        var type: String
        var width: Int
        var height: Int
    }

    var input: String
    var output: String
    var bytes: Int
    var seconds: Double
    var auxiliary: [Auxiliary]
}
