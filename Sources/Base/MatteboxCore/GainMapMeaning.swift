/// What the values of a photo's HDR gain map mean, said once for the photo, as an iPhone's maker
/// note says its headroom. Why it exists: a stage that renders the map again (the portrait effect
/// blurs it as it blurs the primary) replaces the image and with it what its container said of it
/// (`AuxiliaryImageInfo`), but the map's values still mean what they meant.
package struct GainMapMeaning: Sendable, Equatable {
    /// For Apple's form (`ImageRole.appleHDRGainMap`): how many stops above SDR white its full
    /// rendition reaches, when the form it was read from stated it (Ultra HDR); iPhones state it in
    /// their maker note instead.
    package var headroomStops: Double?
    /// For a map kept in ISO 21496-1's own form (`ImageRole.isoGainMap`): its metadata block, as
    /// the standard lays it out (no leading version byte). Apple's form cannot say a map per colour
    /// channel or one that also darkens; this keeps such maps as they are.
    package var iso21496: [UInt8]?

    package init(headroomStops: Double? = nil, iso21496: [UInt8]? = nil) {
        (self.headroomStops, self.iso21496) = (headroomStops, iso21496)
    }
}
