import CMatteboxPluginABI

/// The ABI's image roles grouped as plugins use them: the depth images and the mattes a photo may
/// hold. Why it exists: a plugin links no host module, so it cannot read the host's role table
/// (`ImageRole.known`); this is the one list every plugin takes instead (the HEIF stage packages
/// these, the portrait effect leaves them out of a render), and `StandardRolesTests` checks it
/// against the table, so a matte added there and in the ABI header fails until it is added here.
public enum StandardRoles {
    /// Depth in metres and disparity.
    public static let depth = [MBX_ROLE_DEPTH, MBX_ROLE_DISPARITY]
    /// The portrait matte, then the semantic mattes.
    public static let mattes = [
        MBX_ROLE_PORTRAIT_MATTE, MBX_ROLE_HAIR_MATTE, MBX_ROLE_SKIN_MATTE, MBX_ROLE_TEETH_MATTE, MBX_ROLE_GLASSES_MATTE,
        MBX_ROLE_SKY_MATTE,
    ]
    /// The HDR gain maps whose values the host can say the meaning of: Apple's form and ISO
    /// 21496-1's (a map per colour channel, or one that also darkens). A stage that changes the
    /// primary's pixels changes these alike, or removes them.
    public static let gainMaps = ["com.apple.hdrgainmap", "org.iso.gainmap"]
    /// HDR gain maps kept byte for byte but whose values the host cannot say the meaning of
    /// (Samsung's): a stage that changes the primary's pixels removes them.
    public static let opaqueGainMaps = ["com.samsung.hdrgainmap"]
}
