import CVipsShim
import Foundation
import MatteboxCore
import MatteboxHEIF
import MatteboxImageOps
import MatteboxMetadata
import MatteboxRuntime

/// JPEG through libvips, and more than libvips: an unchanged JPEG is written
/// back as its own bytes (turned losslessly in the DCT domain when a stage
/// turned it), a re-encoded one keeps its input's segments, a Motion Photo's
/// movie follows it, and depth goes out as the phone stored it or as Dynamic
/// Depth; the depth and mattes phones store in JPEGs are read with it.
struct JPEGContainer: VipsDecodable {
    let name = "jpeg"
    let aliases = ["jpg"]
    let displayName = "JPEG"
    let fileExtension = "jpg"
    let canWrite = true
    /// A JPEG Motion Photo's movie follows the JPEG's end directly.
    var motionPhotoPrimary: (mime: String, padding: Int)? { ("image/jpeg", 0) }

    func recognizes(_ header: [UInt8]) -> Bool { header.starts(with: [0xFF, 0xD8, 0xFF]) }

    func readPhoto(at url: URL) throws -> Photo {
        // Decoded from the bytes it keeps as its coded origin, so an unchanged
        // photo can be written back as those very bytes.
        _ = try InputFile.checkReadable(url)
        let jpeg = EncodedFile([UInt8](try Data(contentsOf: url)))
        var photo = try VipsReading.photo(try VipsReading.decode(jpeg.bytes, named: url), from: url, displayName: displayName, unkeptNote: false)
        photo.metadata.codedOrigins[.primary] = CodedOrigin(
            file: jpeg, item: 0, decoded: photo.primary, iccProfile: photo.metadata.iccProfile)
        let movieRange = MotionPhotoTrailer.range(in: jpeg.bytes, xmp: photo.metadata.xmp)
        photo.metadata.motionPhotoMovie = movieRange.map { Data(jpeg.bytes[$0]) }
        if photo.metadata.motionPhotoMovie == nil, let xmp = photo.metadata.xmp, MotionPhotoXMP.claimsAMovie(xmp) {
            photo.metadata.notes[MotionPhotoXMP.unreadableMovieNote] =
                "the Motion Photo's movie could not be read (the XMP's movie length does not fit the file): the still is kept, the movie left out"
        }
        // A phone's depth and mattes stored in the JPEG (MPF, Lens Blur, Dynamic Depth), which end
        // where a Motion Photo's movie begins (Dynamic Depth's items are found from there back).
        PhoneDepth.read(jpeg: movieRange.map { Array(jpeg.bytes[..<$0.lowerBound]) } ?? jpeg.bytes, xmp: photo.metadata.xmp, into: &photo)
        return photo
    }

    func encode(_ photo: Photo, quality: Int, heif: HEIFWriteOptions, notes: inout [String: String]) throws -> Data {
        // An unchanged JPEG that holds all its images is its own bytes (an Ultra HDR one stays one).
        let ownBytes = heif.passthrough && unchangedJPEG(photo) != nil && PhoneDepth.fileStillHoldsAll(photo) && !fileHoldsDropped(photo)
        guard !ownBytes else { return try encodeJPEG(photo, quality: quality, heif: heif, notes: &notes) }
        // What an Ultra HDR input's XMP said of its gain map is said anew, or not at all.
        var photo = photo
        photo.metadata.xmp = photo.metadata.xmp.map(UltraHDRXMP.withoutDescription)
        switch UltraHDRJPEG.plan(for: photo) {
        case .none:
            return try encodeJPEG(photo, quality: quality, heif: heif, notes: &notes)
        case .cannot(let why):
            notes["hdrGainMap"] = "the HDR gain map not kept: \(why)"
            photo.setAuxiliary(nil, for: UltraHDRJPEG.gainMapRole)
            photo.setAuxiliary(nil, for: .isoGainMap)
            return try encodeJPEG(photo, quality: quality, heif: heif, notes: &notes)
        case .writeISO(let map, let metadata):
            let gainMap = try UltraHDRJPEG.gainMapJPEG(iso: map, metadata: metadata, quality: quality)
            var described = photo
            described.metadata.xmp = try UltraHDRJPEG.primaryXMP(photo.metadata.xmp, gainMapLength: gainMap.count)
            described.setAuxiliary(nil, for: .isoGainMap)
            let file = try encodeJPEG(described, quality: quality, heif: heif, gainMapFollows: true, notes: &notes)
            notes["hdrGainMap"] = "written as Ultra HDR: the gain map (\(map.width)x\(map.height)) after the primary as it was read, "
                + GainMapForms.summary(metadata) + ", in hdrgm XMP and ISO 21496-1"
            return Data(try UltraHDRJPEG.assemble([UInt8](file), gainMap: gainMap))
        case .write(let map, let stops):
            // The gain map is encoded first: the primary's XMP states its length.
            let gainMap = try UltraHDRJPEG.gainMapJPEG(map, headroomStops: stops, quality: quality)
            var described = photo
            described.metadata.xmp = try UltraHDRJPEG.primaryXMP(photo.metadata.xmp, gainMapLength: gainMap.count)
            described.setAuxiliary(nil, for: UltraHDRJPEG.gainMapRole)
            let file = try encodeJPEG(described, quality: quality, heif: heif, gainMapFollows: true, notes: &notes)
            notes["hdrGainMap"] = String(format: "written as Ultra HDR: the gain map (%dx%d) after the primary, up to %.2fx SDR white (%.2f stops), in hdrgm XMP and ISO 21496-1", map.width, map.height, pow(2, stops), stops)
            return Data(try UltraHDRJPEG.assemble([UInt8](file), gainMap: gainMap))
        }
    }

    /// The JPEG without a gain map of its own making (an input's own bytes keep theirs).
    /// `gainMapFollows`: a gain map is put after it, so the input's own (its MPF index and
    /// ISO 21496-1 segment, which are not carried) is not lost.
    private func encodeJPEG(
        _ photo: Photo, quality: Int, heif: HEIFWriteOptions, gainMapFollows: Bool = false, notes: inout [String: String]
    ) throws -> Data {
        let exif = photo.metadata.exifForWriting(width: photo.primary.width, height: photo.primary.height)
        if let written = try dynamicDepth(photo, quality: quality, heif: heif, gainMapFollows: gainMapFollows, notes: &notes) { return written }
        if heif.passthrough, let original = unchangedJPEG(photo),
            let coded = try losslesslyTurned(original.bytes, by: original.geometry, notes: &notes)
        {
            // The pixels and colour profile are those decoded from a JPEG (perhaps
            // turned, which was done in the DCT domain): its bytes are kept (scan,
            // quantisation, ICC, IPTC, MPF, extended XMP) and only the EXIF and
            // XMP, which stages may have changed, are put in anew.
            var image = MotionPhotoTrailer.removing(photo.metadata.motionPhotoMovie, from: coded)
            if fileHoldsDropped(photo) {
                // What follows the primary holds an image the photo no longer has (a gain map --hdr drop left out).
                image = JPEGSegments.withoutMPF(PhoneDepth.primaryJPEG(of: image))
            }
            let embedded = try ExifEmbedding.embed(exif, inJPEG: try ExifEmbedding.embed(xmp: photo.metadata.xmp, inJPEG: Data(image)))
            return MotionPhotoTrailer.appending(photo.metadata.motionPhotoMovie, to: embedded, xmp: photo.metadata.xmp, notes: &notes)
        }
        var data = try ImageEncoder.encode(
            photo.primary, as: name, quality: quality, iccProfile: photo.metadata.iccProfile, xmp: photo.metadata.xmp)
        if let original = photo.metadata.codedOrigins[.primary]?.file.bytes, original.starts(with: [0xFF, 0xD8]) {
            // A JPEG encoded again keeps the segments of the one it came from (IPTC, comments...).
            var (carried, dropped) = JPEGSegments.carry(from: original, into: data)
            if gainMapFollows { dropped.removeAll { $0 == "MPF (secondary images)" || $0 == "ISO 21496-1 gain map metadata" } }
            data = carried
            if !dropped.isEmpty {
                notes["jpegSegments"] = dropped.joined(separator: ", ") + " not kept: it describes the original encoding"
            }
        }
        // No EXIF in, no EXIF out: libvips' own default block is replaced or removed.
        let embedded = try ExifEmbedding.embed(exif, inJPEG: data)
        return MotionPhotoTrailer.appending(photo.metadata.motionPhotoMovie, to: embedded, xmp: photo.metadata.xmp, notes: &notes)
    }

    /// A JPEG with depth whose input's bytes do not hold it as it is, written as Dynamic Depth:
    /// the primary (its input's own bytes when unchanged, without what followed them; else
    /// encoded anew) with the depth map and mattes appended. Nil when the photo has no depth,
    /// or the input's own bytes are kept and hold every auxiliary image (unless Dynamic Depth
    /// is asked for).
    private func dynamicDepth(
        _ photo: Photo, quality: Int, heif: HEIFWriteOptions, gainMapFollows: Bool, notes: inout [String: String]
    ) throws -> Data? {
        let depthRole: ImageRole? = photo.auxiliary[.disparity] != nil ? .disparity : photo.auxiliary[.depth] != nil ? .depth : nil
        guard let depthRole, let depth = photo.auxiliary[depthRole] else { return nil }
        // The input's own bytes are kept as they are when its pixels did not change nor turn
        // (MPF images are not turned with a lossless turn), and then so is its depth.
        let ownBytesKept = heif.passthrough && unchangedJPEG(photo)?.geometry == .up && !fileHoldsDropped(photo)
        guard heif.dynamicDepth || !ownBytesKept || !PhoneDepth.fileStillHoldsAll(photo) else { return nil }
        var disparity = depth
        var representation = photo.metadata.auxiliaryInfo[depthRole]?.depth
        if depthRole == .depth {
            guard let converted = PhoneDepth.disparity(fromDepth: depth, representation: representation) else {
                notes["auxiliaryImages"] = "\(photo.auxiliary.keys.filter { $0 != .alpha }.sorted().map(\.rawValue).joined(separator: ", ")) not kept: "
                    + "the depth is 8-bit with no range, so Dynamic Depth cannot say how far it is (write HEIC with --format heic)"
                return nil
            }
            (disparity, representation) = (converted, nil)
        }
        var primaryOnly = photo
        for role in photo.auxiliary.keys where role != .alpha { primaryOnly.setAuxiliary(nil, for: role) }
        primaryOnly.metadata.motionPhotoMovie = nil
        var primary = try encodeJPEG(primaryOnly, quality: quality, heif: heif.withoutDynamicDepth, gainMapFollows: gainMapFollows, notes: &notes)
        // The depth and mattes the input's own bytes held go: Dynamic Depth carries them now.
        primary = Data(JPEGSegments.withoutMPF(PhoneDepth.primaryJPEG(of: [UInt8](primary))))
        let mattes = photo.auxiliary.filter { AuxiliaryType.isMatte($0.key) }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        let kept = Set([depthRole] + mattes.map(\.0))
        let left = photo.auxiliary.keys.filter { role in
            role != .alpha && !kept.contains(role)
                && !(role == PhoneDepth.lensBlurOriginal && PhoneDepth.holdsLensBlurOriginal([UInt8](primary), xmp: photo.metadata.xmp))
        }.sorted()
        if !left.isEmpty {
            notes["auxiliaryImages"] = "\(left.map(\.rawValue).joined(separator: ", ")) not kept: a JPEG holds the depth and mattes (as Dynamic Depth), not these (write HEIC with --format heic)"
        }
        notes["dynamicDepth"] = "written as Dynamic Depth 1.0: the \(depthRole == .depth ? "depth" : "disparity") as its depth map"
            + (mattes.isEmpty ? "" : ", \(mattes.map(\.0.rawValue).joined(separator: ", ")) as further items")
        let written = try DynamicDepth.write(
            primary: primary, xmp: photo.metadata.xmp, disparity: disparity, representation: representation, mattes: mattes)
        // A Motion Photo's movie comes last, after the items: readers find it from the file's end.
        return MotionPhotoTrailer.appending(photo.metadata.motionPhotoMovie, to: written, xmp: photo.metadata.xmp, notes: &notes)
    }

    /// True when the input's own images after its primary (MPF's, an Ultra HDR gain map) include
    /// one the photo no longer has, so its bytes after the primary cannot be kept as they are.
    private func fileHoldsDropped(_ photo: Photo) -> Bool {
        guard let original = photo.metadata.codedOrigins[.primary]?.file.bytes, original.starts(with: [0xFF, 0xD8]) else { return false }
        var problems: [String] = []
        var held = Set(((try? AppleDepthJPEG.describedImages(in: original, problems: &problems)) ?? []).map(\.role))
        if let role = UltraHDRJPEG.heldGainMapRole(original) { held.insert(role) }
        return !held.isSubset(of: Set(photo.auxiliary.keys))
    }

    /// The JPEG the photo was read from, when its pixels (perhaps turned) and
    /// colour profile did not change, and how they were turned.
    private func unchangedJPEG(_ photo: Photo) -> (bytes: [UInt8], geometry: ExifOrientation)? {
        guard let origin = photo.metadata.codedOrigins[.primary], origin.file.bytes.starts(with: [0xFF, 0xD8]),
            origin.isUnchanged(photo.primary, iccProfile: photo.metadata.iccProfile)
        else { return nil }
        return (origin.file.bytes, origin.geometry)
    }

    /// The JPEG turned as a stage turned its pixels, without loss; nil (and a
    /// note) when the turn would move partial edge blocks.
    private func losslesslyTurned(_ jpeg: [UInt8], by geometry: ExifOrientation, notes: inout [String: String]) throws -> [UInt8]? {
        guard geometry != .up else { return jpeg }
        if let turned = try LosslessJPEG.transform(jpeg, by: geometry) {
            // The images MPF points at (after the scan) are not turned with it.
            guard JPEGSegments.segments(of: turned).contains(where: \.isMPF) else { return turned }
            notes["jpegSegments"] = "MPF (secondary images) not kept: they were not turned with the photo"
            return JPEGSegments.withoutMPF(turned)
        }
        notes["losslessTurn"] = "the turn was encoded again, not done losslessly: the JPEG's width or height is not a "
            + "whole number of its 8 or 16 px blocks, and a lossless turn would trim those edge pixels (jpegtran -trim)"
        return nil
    }
}
