import Foundation
import MatteboxISOBMFF
import MatteboxRuntime

/// Whether a HEIF file built from an input says exactly what that input says, only laid out and
/// numbered anew: the same items (type, hidden or shown, content type, bytes, properties with
/// their essential flags, references to the same items), the same primary, the same entity groups
/// and the same other top-level boxes. It exists so that a photo no stage changed (no face to
/// matte, no matte replaced) is written as its input's own bytes, with the input's brands (MIAF's
/// `miaf`, `MiHE`, `MiPr`...) and layout, rather than as an equal but different file.
///
/// Items are compared by signature: a SHA-256 over what an item is and the signatures of the items
/// it refers to, so renumbering does not matter and any change to bytes, a property or a link does.
/// Anything it cannot read (a reference to a missing item, a loop of references) counts as a
/// difference, and the file as built is written. Where the two may differ without the photo having
/// changed (the order of descriptive properties, the links the writer cannot make), the input is the
/// one written: it holds more, never less.
enum HEIFSameContent {
    /// True when `written` (built from `input`) holds what `input` holds.
    static func holds(_ written: HEIFFile, _ input: HEIFFile) -> Bool {
        guard input.trailingDamage == nil, otherBoxes(of: written) == otherBoxes(of: input) else { return false }
        var ours = Signatures(file: written), theirs = Signatures(file: input)
        guard let primary = ours.of(written.primaryID), primary == theirs.of(input.primaryID),
            let ourItems = ours.all(), let theirItems = theirs.all(), ourItems == theirItems,
            let ourGroups = ours.groups(), let theirGroups = theirs.groups()
        else { return false }
        return ourGroups == theirGroups
    }

    /// Top-level boxes besides the image's own (`ftyp`, `meta`, `mdat`) and padding: their types and bytes, counted.
    private static func otherBoxes(of file: HEIFFile) -> [[UInt8]: Int] {
        var boxes: [[UInt8]: Int] = [:]
        for box in file.topLevelBoxes where !["ftyp", "meta", "mdat", "free", "skip"].contains(box.type) {
            boxes[Array(file.bytes[box.range]), default: 0] += 1
        }
        return boxes
    }

    /// The signatures of one file's items, worked out once each.
    private struct Signatures {
        let file: HEIFFile
        private var known: [UInt32: String] = [:]
        private var open: Set<UInt32> = []  // items whose signature is being worked out (a loop, if met again)

        init(file: HEIFFile) { self.file = file }

        /// Every item's signature, counted; nil when one cannot be worked out.
        mutating func all() -> [String: Int]? {
            var counts: [String: Int] = [:]
            for id in file.itemOrder {
                guard let signature = of(id) else { return nil }
                counts[signature, default: 0] += 1
            }
            return counts
        }

        /// Each entity group as its type and its members' signatures in order, counted (a member
        /// that is not an item, such as a track, by its ID).
        mutating func groups() -> [[String]: Int]? {
            var counts: [[String]: Int] = [:]
            for group in file.entityGroups {
                var described = [group.type]
                for entity in group.entities {
                    if file.items[entity] == nil {
                        described.append("entity \(entity)")
                    } else {
                        guard let signature = of(entity) else { return nil }
                        described.append(signature)
                    }
                }
                counts[described, default: 0] += 1
            }
            return counts
        }

        mutating func of(_ id: UInt32) -> String? {
            if let signature = known[id] { return signature }
            guard let item = file.items[id], !open.contains(id) else { return nil }
            open.insert(id)
            defer { open.remove(id) }
            var described = Data()
            func add(_ bytes: some Sequence<UInt8>) {
                let bytes = Array(bytes)
                withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { described.append(contentsOf: $0) }
                described.append(contentsOf: bytes)
            }
            add(item.type.utf8)
            add((item.isHidden ? "hidden" : "shown").utf8)
            add((item.contentType ?? "").utf8)
            if item.extents.isEmpty {
                add("no data".utf8)
            } else {
                guard let data = try? file.data(of: id) else { return nil }
                add(ContentHash.sha256(Data(data)).utf8)
            }
            // Descriptive properties in any order (an iPhone puts `pixi` after `irot`); transformative ones
            // (`clap`, `irot`, `imir`, `iscl`) in theirs, which is the order they are applied in.
            let properties = file.properties(of: id).map { (Array(($0.essential ? "essential" : "optional").utf8) + $0.property.box, $0.property.type) }
            let transformative: Set<String> = ["clap", "irot", "imir", "iscl"]
            let descriptive = properties.filter { !transformative.contains($0.1) }.map(\.0).sorted { $0.lexicographicallyPrecedes($1) }
            for property in descriptive + properties.filter({ transformative.contains($0.1) }).map(\.0) { add(property) }
            // References by type (a type's targets in their own order: a grid's tiles).
            let references = file.references.filter { $0.from == id }.enumerated()
                .sorted { ($0.element.type, $0.offset) < ($1.element.type, $1.offset) }.map(\.element)
            for reference in references {
                add(reference.type.utf8)
                // An image or metadata item for the primary and its tone map too, as iOS 18 links them, is
                // linked to the first alone by the writer (libheif 1.15 reads one `auxl` target): compared
                // by that one, so such an input is still kept whole, its other links included.
                let targets = ["auxl", "cdsc"].contains(reference.type) ? Array(reference.to.prefix(1)) : reference.to
                for target in targets {
                    guard let signature = of(target) else { return nil }
                    add(signature.utf8)
                }
            }
            let signature = ContentHash.sha256(described)
            known[id] = signature
            return signature
        }
    }
}
