import Foundation
import MatteboxCore
import MatteboxMetadata
import MatteboxRuntime

/// Ultra HDR JPEG (Android 14+, Chrome, libultrahdr): an SDR JPEG primary whose XMP says
/// `hdrgm:Version` and lists a gain map in a Google Container directory, whose APP2 segments
/// hold ISO 21496-1's versions and an MPF index, followed by the gain map, itself a JPEG with its
/// mapping in hdrgm XMP and in ISO 21496-1's APP2. Why it exists: a JPEG is what most people
/// share, and an iPhone's HDR photo written as a plain JPEG goes dull on every HDR screen.
/// The photo's gain map is kept in Apple's form (`GainMapForms` converts both ways).
package enum UltraHDRJPEG {
    /// The role the photo keeps its gain map under, whichever form it was read from.
    package static let gainMapRole = ImageRole.appleHDRGainMap

    /// What a JPEG output does with the photo's gain map.
    package enum Plan {
        case none
        case write(map: PixelImage, headroomStops: Double)
        /// A map kept in ISO 21496-1's form, written as it is.
        case writeISO(map: PixelImage, metadata: GainMapMetadata)
        /// Why it cannot be written, for the note.
        case cannot(String)
    }

    /// Whether a JPEG encoded anew from `photo` carries its gain map, and why not.
    package static func plan(for photo: Photo) -> Plan {
        let apple = photo.auxiliary[gainMapRole], iso = photo.auxiliary[.isoGainMap]
        guard apple != nil || iso != nil else { return .none }
        if let xmp = photo.metadata.xmp, let packet = try? XMPPacket(xmp), !UltraHDRXMP.canDescribe(packet) {
            return .cannot("the photo's XMP already has a Container directory of other items than a Motion Photo's movie, which the gain map cannot join")
        }
        if let map = apple {
            guard let stops = photo.gainMapHeadroomStops else {
                return .cannot("its headroom is not known or is 0 (the photo has no Apple maker note stating one)")
            }
            return .write(map: map, headroomStops: stops)
        }
        do {
            return .writeISO(map: iso!, metadata: try isoMetadata(of: photo))
        } catch {
            return .cannot("\(error)")
        }
    }

    /// Whether a JPEG encoded anew from `photo` is an Ultra HDR JPEG (its plan writes a gain map).
    package static func carriesGainMap(_ photo: Photo) -> Bool {
        switch plan(for: photo) {
        case .write, .writeISO: true
        case .none, .cannot: false
        }
    }

    /// The ISO 21496-1 metadata of the photo's `ImageRole.isoGainMap`; throws when it has none or it
    /// cannot be read, or when it does not fit the map (a map per channel that is grey).
    package static func isoMetadata(of photo: Photo) throws -> GainMapMetadata {
        guard let bytes = photo.metadata.gainMap.iso21496 else {
            throw MatteboxError("the ISO 21496-1 gain map has no metadata saying what its values mean")
        }
        let metadata = try GainMapMetadata(bytes: bytes, leadingVersion: false)
        if let map = photo.auxiliary[.isoGainMap], metadata.isMultichannel, map.channels < 3 {
            throw MatteboxError("the ISO 21496-1 gain map's metadata is per colour channel but the map is grey")
        }
        return metadata
    }

    /// The gain map image: Apple's map said as ISO 21496-1, a grey JPEG at `quality` (at least
    /// 90: its steps are stops of light) with hdrgm XMP and ISO 21496-1's APP2.
    package static func gainMapJPEG(_ map: PixelImage, headroomStops: Double, quality: Int) throws -> [UInt8] {
        let (iso, metadata) = GainMapForms.iso(fromApple: map, headroomStops: headroomStops)
        let encoded = try ImageEncoder.encode(iso, as: "jpeg", quality: max(quality, 90), iccProfile: nil, xmp: UltraHDRXMP.gainMapPacket(metadata))
        let bare = [UInt8](try ExifEmbedding.embed(nil, inJPEG: encoded))
        return JPEGSegments.inserting([app2(GainMapMetadata.jpegSegmentHeader + metadata.encoded(leadingVersion: false))], afterLeadingAPPnOf: bare).bytes
    }

    /// A gain map kept in ISO 21496-1's form as an Ultra HDR gain map image, as it is: grey, or
    /// colour for a map per channel, at `quality` (at least 90), its metadata in hdrgm XMP and APP2.
    /// A map from an HDR base has its metadata in APP2 alone: hdrgm would need its samples turned
    /// (`UltraHDRXMP.canState`), and a reader of the XMP alone then shows the base as it is.
    package static func gainMapJPEG(iso map: PixelImage, metadata: GainMapMetadata, quality: Int) throws -> [UInt8] {
        let pixels = map.converted(channels: metadata.isMultichannel ? 3 : 1, eightBit: true)
        let xmp = UltraHDRXMP.canState(metadata) ? UltraHDRXMP.gainMapPacket(metadata) : nil
        let encoded = try ImageEncoder.encode(pixels, as: "jpeg", quality: max(quality, 90), iccProfile: nil, xmp: xmp)
        let bare = [UInt8](try ExifEmbedding.embed(nil, inJPEG: encoded))
        return JPEGSegments.inserting([app2(GainMapMetadata.jpegSegmentHeader + metadata.encoded(leadingVersion: false))], afterLeadingAPPnOf: bare).bytes
    }

    /// `xmp` (the photo's, or none) saying the file carries a gain map of `length` bytes.
    package static func primaryXMP(_ xmp: Data?, gainMapLength length: Int) throws -> Data {
        let packet = try xmp.map { try XMPPacket($0) } ?? XMPPacket(toolkit: "Mattebox")
        return try UltraHDRXMP.describingPrimary(packet, gainMapLength: length).data
    }

    /// `file` (a finished JPEG whose XMP already describes the gain map, perhaps followed by
    /// Dynamic Depth items or a movie, which are found from the end) with ISO 21496-1's version
    /// segment and an MPF index in its first image, and the gain map right after that image.
    package static func assemble(_ file: [UInt8], gainMap: [UInt8]) throws -> [UInt8] {
        guard let end = JPEGSegments.endOfImage(in: file) else { throw MatteboxError("the encoded JPEG is cut short: its gain map cannot follow it") }
        let primary = JPEGSegments.withoutMPF(Array(file[..<end]))
        let versions = app2(GainMapMetadata.jpegSegmentHeader + GainMapMetadata.versionsOnly)
        // The index's size does not depend on its numbers: put it in, then fill them.
        let placeholder = MPFIndex.segment(primaryLength: 0, following: [(gainMap.count, 0)])
        var (bytes, at) = JPEGSegments.inserting([versions, placeholder], afterLeadingAPPnOf: primary)
        let mpfAt = at + versions.count, header = mpfAt + 8
        let index = MPFIndex.segment(primaryLength: bytes.count, following: [(gainMap.count, bytes.count - header)])
        bytes.replaceSubrange(mpfAt..<(mpfAt + index.count), with: index)
        return bytes + gainMap + file[end...]
    }

    /// Whether an image after the primary is an Ultra HDR gain map (hdrgm XMP or ISO 21496-1's APP2).
    package static func isGainMap<Bytes: Collection<UInt8>>(_ image: Bytes) -> Bool {
        let bytes = [UInt8](image)
        if JPEGSegments.segments(of: bytes).contains(where: \.isGainMapMetadata) { return true }
        guard let payload = JPEGSegments.app1Payload(startingWith: JPEGSegments.xmpHeader, in: bytes),
            let packet = try? XMPPacket(Data(payload.dropFirst(JPEGSegments.xmpHeader.count)))
        else { return false }
        return packet.value(.hdrGainMap("Version")) != nil
    }

    /// Whether `jpeg`'s MPF index lists an Ultra HDR gain map.
    package static func holdsGainMap(_ jpeg: [UInt8]) -> Bool { heldGainMapRole(jpeg) != nil }

    /// The role the Ultra HDR gain map `jpeg`'s MPF index lists is read under (Apple's form when it
    /// can say the map's mapping, else `ImageRole.isoGainMap`); nil when it lists none.
    package static func heldGainMapRole(_ jpeg: [UInt8]) -> ImageRole? {
        guard let index = try? MPFIndex.read(from: jpeg) else { return nil }
        for entry in index.entries.dropFirst() {
            let image = Array(jpeg[entry.fileOffset..<(entry.fileOffset + entry.size)])
            guard isGainMap(image) else { continue }
            let metadata = try? metadata(of: image, what: "the gain map")
            return metadata.map(GainMapForms.appleCanSay) == false ? .isoGainMap : gainMapRole
        }
        return nil
    }

    /// The gain map an Ultra HDR JPEG carries, as its ISO 21496-1 APP2 (preferred: it is the
    /// standard) or its hdrgm XMP states it: read into Apple's form under `gainMapRole` with the
    /// headroom it reaches when that form can say it, else (a map per colour channel, or one that
    /// also darkens) kept as it is under `ImageRole.isoGainMap` with its metadata.
    static func read(_ jpeg: [UInt8], into found: inout PhoneDepth.Found) {
        guard let index = try? MPFIndex.read(from: jpeg) else { return } // a damaged index is the MPF reader's note
        for (position, entry) in index.entries.enumerated().dropFirst() {
            let image = Array(jpeg[entry.fileOffset..<(entry.fileOffset + entry.size)])
            guard image.starts(with: [0xFF, 0xD8]), isGainMap(image) else { continue }
            let what = "the Ultra HDR gain map (MPF image \(position + 1))"
            do {
                let mapping = try self.mapping(of: image, what: what)
                let (metadata, samplesTurned) = (mapping.metadata, mapping.samplesTurned)
                let source = "Ultra HDR gain map (MPF image \(position + 1))"
                if GainMapForms.appleCanSay(metadata) {
                    let (map, stops) = GainMapForms.apple(fromISO: try EmbeddedImage.grey(image, what: what), metadata: metadata)
                    found.images.append((gainMapRole, map, AuxiliaryImageInfo(source: source)))
                    found.gainMap = GainMapMeaning(headroomStops: stops)
                } else {
                    var map = metadata.isMultichannel ? try EmbeddedImage.colour(image, what: what) : try EmbeddedImage.grey(image, what: what)
                    if samplesTurned { map = GainMapForms.turnedSamples(map, metadata: metadata) }
                    found.images.append((.isoGainMap, map, AuxiliaryImageInfo(
                        source: source + ", ISO 21496-1 form" + (samplesTurned ? " (an HDR base stated in hdrgm XMP, its samples turned)" : ""))))
                    found.gainMap = GainMapMeaning(iso21496: metadata.encoded(leadingVersion: false))
                }
            } catch {
                found.problems.append("\(what) cannot be read: \(error)")
            }
        }
    }

    /// The mapping a gain map image states: its ISO 21496-1 APP2, else its hdrgm XMP.
    package static func metadata(of image: [UInt8], what: String) throws -> GainMapMetadata {
        try mapping(of: image, what: what).metadata
    }

    /// The mapping a gain map image states, and whether its samples must be turned first (an HDR
    /// base stated in hdrgm XMP alone).
    static func mapping(of image: [UInt8], what: String) throws -> UltraHDRXMP.Mapping {
        if let segment = JPEGSegments.segments(of: image).first(where: \.isGainMapMetadata) {
            let metadata = try GainMapMetadata(bytes: Array(segment.payload.dropFirst(GainMapMetadata.jpegSegmentHeader.count)), leadingVersion: false)
            return UltraHDRXMP.Mapping(metadata: metadata, samplesTurned: false)
        }
        guard let payload = JPEGSegments.app1Payload(startingWith: JPEGSegments.xmpHeader, in: image),
            let mapping = try UltraHDRXMP.mapping(in: try XMPPacket(Data(payload.dropFirst(JPEGSegments.xmpHeader.count))))
        else { throw MatteboxError("\(what) states no mapping") }
        return mapping
    }

    /// A whole APP2 segment holding `payload`.
    private static func app2(_ payload: [UInt8]) -> [UInt8] {
        [0xFF, 0xE2, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
    }
}
