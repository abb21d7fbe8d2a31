import Foundation
import Testing

@testable import MatteboxCore

/// The role table is the one list of roles: the plugin ABI's `MBX_ROLE_*` constants name exactly
/// its plain roles, and the lists derived from it hold what they say.
struct KnownRolesTests {
    /// `#define MBX_ROLE_NAME "value"` lines of the ABI header, by value.
    static func abiRoles() throws -> [String] {
        let header = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/PluginInterface/CMatteboxPluginABI/include/mattebox/plugin.h")
        let text = try String(contentsOf: header, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("#define MBX_ROLE_"), let open = line.firstIndex(of: "\""), let close = line.lastIndex(of: "\""), open < close else { return nil }
            return String(line[line.index(after: open)..<close])
        }
    }

    @Test func theABIHeaderNamesTheTablesPlainRoles() throws {
        #expect(try Self.abiRoles() == ImageRole.wellKnown.map(\.rawValue))
    }

    @Test func theDerivedListsHoldWhatTheySay() {
        #expect(ImageRole.semanticMattes == [.hairMatte, .skinMatte, .teethMatte, .glassesMatte, .skyMatte])
        #expect(ImageRole.mattes == [.portraitMatte] + ImageRole.semanticMattes)
        #expect(ImageRole.depthRoles == [.depth, .disparity])
        #expect(ImageRole.hdrGainMaps == ["com.apple.hdrgainmap", "org.iso.gainmap", "com.samsung.hdrgainmap"])
        #expect(ImageRole.mattesByShortName.map(\.name) == ["portrait", "hair", "skin", "teeth", "glasses", "sky"])
        // Every HEIF type is one role's, and every matte has an Apple type to be written under.
        let types = ImageRole.known.flatMap(\.heifTypes)
        #expect(Set(types).count == types.count)
        #expect(ImageRole.known.filter(\.isMatte).allSatisfy { $0.heifTypes.first?.hasPrefix("urn:com:apple:photo:") == true })
    }
}
