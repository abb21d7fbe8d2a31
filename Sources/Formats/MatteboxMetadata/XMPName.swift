/// A property's name in XMP: its namespace and local name, with the prefix
/// written when Mattebox adds it (a reader matches by namespace, never by prefix).
package struct XMPName: Hashable, Sendable, CustomStringConvertible {
    package var namespace: String
    package var name: String
    package var preferredPrefix: String

    package init(_ namespace: String, _ name: String, prefix: String) {
        self.namespace = namespace
        self.name = name
        preferredPrefix = prefix
    }

    package var description: String { "\(preferredPrefix):\(name)" }
}

/// The namespaces Mattebox reads and writes.
package enum XMPNamespace {
    package static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    package static let meta = "adobe:ns:meta/"
    /// Google's Camera properties (Motion Photo, MicroVideo).
    package static let googleCamera = "http://ns.google.com/photos/1.0/camera/"
    /// Google's Container directory and its items.
    package static let container = "http://ns.google.com/photos/1.0/container/"
    package static let containerItem = "http://ns.google.com/photos/1.0/container/item/"
    /// Apple's auxiliary-image properties.
    package static let applePixelDataInfo = "http://ns.apple.com/pixeldatainfo/1.0/"
    package static let appleDepthData = "http://ns.apple.com/depthData/1.0/"
    package static let applePortraitEffectsMatte = "http://ns.apple.com/portraitEffectsMatte/1.0/"
    package static let appleSemanticSegmentationMatte = "http://ns.apple.com/semanticSegmentationMatte/1.0/"
    package static let appleHDRGainMap = "http://ns.apple.com/HDRGainMap/1.0/"
    /// Google's Lens Blur depth map (GDepth 1.0) and the photo before its blur (GImage).
    package static let googleDepth = "http://ns.google.com/photos/1.0/depthmap/"
    package static let googleImage = "http://ns.google.com/photos/1.0/image/"
    /// Lens Blur's focus: where the user tapped and how strong the blur is (GFocus 1.0).
    package static let googleFocus = "http://ns.google.com/photos/1.0/focus/"
    /// Google's Dynamic Depth 1.0.
    package static let dynamicDepthDevice = "http://ns.google.com/photos/dd/1.0/device/"
    package static let dynamicDepthContainer = "http://ns.google.com/photos/dd/1.0/container/"
    package static let dynamicDepthItem = "http://ns.google.com/photos/dd/1.0/item/"
    package static let dynamicDepthCamera = "http://ns.google.com/photos/dd/1.0/camera/"
    package static let dynamicDepthDepthMap = "http://ns.google.com/photos/dd/1.0/depthmap/"
    package static let dynamicDepthImage = "http://ns.google.com/photos/dd/1.0/image/"
    package static let dynamicDepthProfile = "http://ns.google.com/photos/dd/1.0/profile/"
    /// Adobe's gain map fields, as Ultra HDR JPEGs write them (hdrgm 1.0).
    package static let hdrGainMap = "http://ns.adobe.com/hdr-gain-map/1.0/"
}

extension XMPName {
    package static let motionPhoto = XMPName(XMPNamespace.googleCamera, "MotionPhoto", prefix: "GCamera")
    package static let motionPhotoVersion = XMPName(XMPNamespace.googleCamera, "MotionPhotoVersion", prefix: "GCamera")
    package static let motionPhotoPresentationTimestampUs = XMPName(
        XMPNamespace.googleCamera, "MotionPhotoPresentationTimestampUs", prefix: "GCamera")
    package static let microVideo = XMPName(XMPNamespace.googleCamera, "MicroVideo", prefix: "GCamera")
    package static let microVideoOffset = XMPName(XMPNamespace.googleCamera, "MicroVideoOffset", prefix: "GCamera")
    package static let containerDirectory = XMPName(XMPNamespace.container, "Directory", prefix: "Container")
    package static let containerItem = XMPName(XMPNamespace.container, "Item", prefix: "Container")
    package static let itemMime = XMPName(XMPNamespace.containerItem, "Mime", prefix: "Item")
    package static let itemSemantic = XMPName(XMPNamespace.containerItem, "Semantic", prefix: "Item")
    package static let itemLength = XMPName(XMPNamespace.containerItem, "Length", prefix: "Item")
    package static let itemPadding = XMPName(XMPNamespace.containerItem, "Padding", prefix: "Item")
    package static let appleAuxiliaryImageType = XMPName(XMPNamespace.applePixelDataInfo, "AuxiliaryImageType", prefix: "apdi")
    package static let appleAuxiliaryImageSubType = XMPName(XMPNamespace.applePixelDataInfo, "AuxiliaryImageSubType", prefix: "apdi")
    package static let appleFloatMinValue = XMPName(XMPNamespace.applePixelDataInfo, "FloatMinValue", prefix: "apdi")
    package static let appleFloatMaxValue = XMPName(XMPNamespace.applePixelDataInfo, "FloatMaxValue", prefix: "apdi")
    /// A Lens Blur depth map's fields (GDepth) and the unblurred photo's (GImage).
    package static func googleDepth(_ field: String) -> XMPName { XMPName(XMPNamespace.googleDepth, field, prefix: "GDepth") }
    package static func googleImage(_ field: String) -> XMPName { XMPName(XMPNamespace.googleImage, field, prefix: "GImage") }
    package static func googleFocus(_ field: String) -> XMPName { XMPName(XMPNamespace.googleFocus, field, prefix: "GFocus") }
    /// An Ultra HDR gain map's fields (hdrgm: Version, GainMapMin...).
    package static func hdrGainMap(_ field: String) -> XMPName { XMPName(XMPNamespace.hdrGainMap, field, prefix: "hdrgm") }
    /// A Dynamic Depth depth map's fields.
    package static func dynamicDepthMap(_ field: String) -> XMPName { XMPName(XMPNamespace.dynamicDepthDepthMap, field, prefix: "DepthMap") }
}
