/// What a portrait matte the portrait-matte stage made holds, left by it as a shared value of the
/// photo for the portrait effect. Why it exists: a person matte holds the person alone, so a render
/// without depth says what they hold is not placed with them, where a salient object's matte holds
/// the object whole; and a person matte made by a matting network runs on out of the frame's foot,
/// over the floor or table the person stands on, which a new background or a cut-out leaves out (the
/// phone's own matte does not). One place spells the name.
package enum PortraitMatteSubject {
    /// The shared value's name; absent when the stage made no matte (the phone's own is used).
    package static let sharedName = "portrait.matte-subject"
    /// The value when the matte is the photo's salient object.
    package static let salientObject = "salient object"
    /// The value when the matte is a person's, made from a face (MODNet, or the classical cut-out).
    package static let madePerson = "person"
}
