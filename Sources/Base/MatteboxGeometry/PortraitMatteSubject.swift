/// What a portrait matte made without a face holds, left by the portrait-matte stage as a shared
/// value of the photo for the portrait effect. Why it exists: a person matte holds the person alone,
/// so a render without depth says what they hold is not placed with them; a salient object's matte
/// holds the object whole, and that note would be wrong. One place spells the name.
package enum PortraitMatteSubject {
    /// The shared value's name; absent for a person matte (made from a face, or the phone's own).
    package static let sharedName = "portrait.matte-subject"
    /// The value when the matte is the photo's salient object.
    package static let salientObject = "salient object"
}
