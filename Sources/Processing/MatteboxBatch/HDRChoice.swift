import MatteboxCore

/// `--hdr drop`: an HDR photo written as SDR. Its gain map is taken out before any stage runs (no
/// stage spends time on it), with a note; a HEIF input's ISO 21496-1 tone map item, which joins
/// the primary and that gain map, is then not carried either (the writer names it).
enum HDRChoice {
    static func drop(from photo: inout Photo) {
        let dropped = ImageRole.hdrGainMaps.filter { photo.auxiliary[$0] != nil }.sorted()
        guard !dropped.isEmpty else { return }
        for role in dropped { photo.setAuxiliary(nil, for: role) }
        photo.metadata.notes["hdr"] = "the HDR gain map (\(dropped.map(\.rawValue).joined(separator: ", "))) left out, as --hdr drop asked: an SDR photo"
    }
}
