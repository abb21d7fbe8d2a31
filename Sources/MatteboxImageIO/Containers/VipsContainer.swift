import CVipsShim
import Foundation
import MatteboxCore
import MatteboxHEIF
import MatteboxImageOps
import MatteboxMetadata
import MatteboxRuntime

/// The formats libvips reads (and, for JPEG and PNG, writes) for Mattebox:
/// pixels as stored, never auto-rotated, with EXIF, XMP and the ICC profile
/// carried along; written with the EXIF orientation and dimensions brought up
/// to date by Mattebox's own EXIF splicer.
struct VipsContainer: ImageContainer {
    let name: String
    let aliases: [String]
    let displayName: String
    let fileExtension: String
    let canWrite: Bool
    var holdsAlpha: Bool { name == "png" }
    /// A JPEG Motion Photo's movie follows the JPEG's end directly.
    var motionPhotoPrimary: (mime: String, padding: Int)? { name == "jpeg" ? ("image/jpeg", 0) : nil }
    var maximumBitsPerSample: Int { name == "png" ? 16 : 8 }
    private let signature: @Sendable ([UInt8]) -> Bool

    func recognizes(_ header: [UInt8]) -> Bool { signature(header) }

    static let jpeg = VipsContainer(
        name: "jpeg", aliases: ["jpg"], displayName: "JPEG", fileExtension: "jpg", canWrite: true,
        signature: { $0.starts(with: [0xFF, 0xD8, 0xFF]) })
    static let png = VipsContainer(
        name: "png", aliases: [], displayName: "PNG", fileExtension: "png", canWrite: true,
        signature: { $0.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) })
    static let tiff = VipsContainer(
        name: "tiff", aliases: ["tif"], displayName: "TIFF", fileExtension: "tif", canWrite: false,
        signature: { $0.starts(with: [0x49, 0x49, 0x2A, 0x00]) || $0.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) })
    static let webp = VipsContainer(
        name: "webp", aliases: [], displayName: "WebP", fileExtension: "webp", canWrite: false,
        signature: { $0.count >= 12 && $0.starts(with: Array("RIFF".utf8)) && Array($0[8..<12]) == Array("WEBP".utf8) })
    /// PBM/PGM/PPM and PFM (float, Middlebury's disparity format), by libvips' own loader.
    static let netpbm = VipsContainer(
        name: "pnm", aliases: ["pfm", "ppm", "pgm"], displayName: "Netpbm (PPM, PGM, PFM)", fileExtension: "ppm",
        canWrite: false,
        signature: { $0.count >= 2 && $0[0] == 0x50 && Array("123456fF".utf8).contains($0[1]) })

    func readPhoto(at url: URL) throws -> Photo {
        try Vips.start()
        var decoded = mbx_decoded()
        // A JPEG is decoded from the bytes it keeps as its coded origin, so an
        // unchanged photo can be written back as those very bytes.
        var jpeg: EncodedFile?
        if name == "jpeg" {
            _ = try InputFile.checkReadable(url)
            let file = EncodedFile([UInt8](try Data(contentsOf: url)))
            try file.bytes.withUnsafeBytes { bytes in
                try Vips.call { mbx_vips_decode_buffer(bytes.baseAddress, bytes.count, url.path, &decoded, $0) }
            }
            jpeg = file
        } else {
            try Vips.call { mbx_vips_decode_file(url.path, &decoded, $0) }
        }
        let exifBytes = Vips.data(decoded.exif).map { [UInt8]($0) }
        var metadata = PhotoMetadata(
            exif: exifBytes.flatMap(ExifBlock.init), xmp: Vips.data(decoded.xmp),
            iccProfile: Vips.data(decoded.icc))
        let loader = withUnsafeBytes(of: decoded.loader) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        // What the file holds beyond the EXIF, XMP and ICC profile a photo carries is named, never dropped silently.
        var unkept: [String] = []
        if decoded.iptc_bytes > 0 { unkept.append("the IPTC record (\(decoded.iptc_bytes) bytes)") }
        let fields = withUnsafeBytes(of: decoded.other_fields) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if !fields.isEmpty { unkept.append("the text fields \(fields)") }
        // (A JPEG's own segments, IPTC and comments included, are carried by JPEG outputs and named by the others.)
        if !unkept.isEmpty, name != "jpeg" {
            metadata.notes["inputMetadata"] =
                "\(unkept.joined(separator: " and ")) of the \(displayName) not kept: Mattebox carries EXIF, XMP and the colour profile"
        }
        mbx_vips_blob_free(&decoded.exif)
        mbx_vips_blob_free(&decoded.xmp)
        mbx_vips_blob_free(&decoded.icc)
        let primary = try Vips.image(adopting: decoded.pixels)
        let alpha = decoded.alpha.data == nil ? nil : try Vips.image(adopting: decoded.alpha)
        if let jpeg {
            metadata.codedOrigins[.primary] = CodedOrigin(file: jpeg, item: 0, decoded: primary, iccProfile: metadata.iccProfile)
            metadata.motionPhotoMovie = MotionPhotoTrailer.range(in: jpeg.bytes, xmp: metadata.xmp).map { Data(jpeg.bytes[$0]) }
        }
        var photo = Photo(primary: primary, metadata: metadata, source: url)
        if let alpha { photo.setAuxiliary(alpha, for: .alpha) }
        // A phone's depth and mattes stored in the JPEG (MPF, Lens Blur, Dynamic Depth).
        if let jpeg { PhoneDepth.read(jpeg: jpeg.bytes, xmp: photo.metadata.xmp, into: &photo) }
        return photo
    }

    func encode(_ photo: Photo, quality: Int, heif: HEIFWriteOptions, notes: inout [String: String]) throws -> Data {
        guard canWrite else { throw MatteboxError("Mattebox reads \(displayName) but does not write it") }
        let exif = photo.metadata.exifForWriting(width: photo.primary.width, height: photo.primary.height)
        if name == "jpeg", let written = try dynamicDepth(photo, quality: quality, heif: heif, notes: &notes) { return written }
        if name == "jpeg", heif.passthrough, let original = unchangedJPEG(photo),
            let coded = try losslesslyTurned(original.bytes, by: original.geometry, notes: &notes)
        {
            // The pixels and colour profile are those decoded from a JPEG (perhaps
            // turned, which was done in the DCT domain): its bytes are kept (scan,
            // quantisation, ICC, IPTC, MPF, extended XMP) and only the EXIF and
            // XMP, which stages may have changed, are put in anew.
            let image = MotionPhotoTrailer.removing(photo.metadata.motionPhotoMovie, from: coded)
            let embedded = try ExifEmbedding.embed(exif, inJPEG: try ExifEmbedding.embed(xmp: photo.metadata.xmp, inJPEG: Data(image)))
            return MotionPhotoTrailer.appending(photo.metadata.motionPhotoMovie, to: embedded, xmp: photo.metadata.xmp, notes: &notes)
        }
        // PNG holds alpha: the alpha image goes back in as the fourth channel.
        let pixels = holdsAlpha ? photo.auxiliary[.alpha].flatMap { photo.primary.addingAlpha($0) } ?? photo.primary : photo.primary
        var data = try ImageEncoder.encode(
            pixels, as: name, quality: quality, iccProfile: photo.metadata.iccProfile, xmp: photo.metadata.xmp)
        guard name == "jpeg" else { return try ExifEmbedding.embed(exif, inPNG: data) }
        if let original = photo.metadata.codedOrigins[.primary]?.file.bytes, original.starts(with: [0xFF, 0xD8]) {
            // A JPEG encoded again keeps the segments of the one it came from (IPTC, comments...).
            let (carried, dropped) = JPEGSegments.carry(from: original, into: data)
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
    private func dynamicDepth(_ photo: Photo, quality: Int, heif: HEIFWriteOptions, notes: inout [String: String]) throws -> Data? {
        let depthRole: ImageRole? = photo.auxiliary[.disparity] != nil ? .disparity : photo.auxiliary[.depth] != nil ? .depth : nil
        guard let depthRole, let depth = photo.auxiliary[depthRole] else { return nil }
        // The input's own bytes are kept as they are when its pixels did not change nor turn
        // (MPF images are not turned with a lossless turn), and then so is its depth.
        let ownBytesKept = heif.passthrough && unchangedJPEG(photo)?.geometry == .up
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
        var primary = try encode(primaryOnly, quality: quality, heif: heif.withoutDynamicDepth, notes: &notes)
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
        return try DynamicDepth.write(primary: primary, xmp: photo.metadata.xmp, disparity: disparity, representation: representation, mattes: mattes)
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
