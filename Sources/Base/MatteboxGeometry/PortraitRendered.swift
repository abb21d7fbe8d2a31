/// What a portrait render was made with, left by the portrait effect as shared values of the
/// photo for whoever shows it (the app's Portrait control starts there). Why it exists: the
/// plugin writes these names and the app's server reads them; one place spells them.
package enum PortraitRendered {
    /// The f-number, "2.8".
    package static let apertureName = "portrait.aperture"
    /// The focus: "x,y" (0...1 across the upright photo) or "subject".
    package static let focusName = "portrait.focus"
}
