import MatteboxCore
import MatteboxPluginSDK
import Testing

/// The plugins' role lists are the host's role table's: a matte added to the table (and the ABI
/// header) fails here until plugins see it too.
struct StandardRolesTests {
    @Test func thePluginsListsAreTheRoleTables() {
        #expect(StandardRoles.depth == ImageRole.depthRoles.map(\.rawValue))
        #expect(StandardRoles.mattes == ImageRole.mattes.map(\.rawValue))
        #expect(StandardRoles.gainMaps == [ImageRole.appleHDRGainMap, .isoGainMap].map(\.rawValue))
        #expect(Set((StandardRoles.gainMaps + StandardRoles.opaqueGainMaps).map(ImageRole.init(rawValue:))) == ImageRole.hdrGainMaps)
    }
}
