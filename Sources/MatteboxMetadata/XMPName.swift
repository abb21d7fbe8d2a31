/// A property's name in XMP: its namespace and local name, with the prefix
/// written when Mattebox adds it (a reader matches by namespace, never by prefix).
public struct XMPName: Hashable, Sendable, CustomStringConvertible {
    public var namespace: String
    public var name: String
    public var preferredPrefix: String

    public init(_ namespace: String, _ name: String, prefix: String) {
        self.namespace = namespace
        self.name = name
        preferredPrefix = prefix
    }

    public var description: String { "\(preferredPrefix):\(name)" }
}

/// The namespaces Mattebox reads and writes.
public enum XMPNamespace {
    public static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    public static let meta = "adobe:ns:meta/"
    /// Google's Camera properties (Motion Photo, MicroVideo).
    public static let googleCamera = "http://ns.google.com/photos/1.0/camera/"
    /// Google's Container directory and its items.
    public static let container = "http://ns.google.com/photos/1.0/container/"
    public static let containerItem = "http://ns.google.com/photos/1.0/container/item/"
    /// Apple's auxiliary-image properties.
    public static let applePixelDataInfo = "http://ns.apple.com/pixeldatainfo/1.0/"
    public static let appleDepthData = "http://ns.apple.com/depthData/1.0/"
    public static let applePortraitEffectsMatte = "http://ns.apple.com/portraitEffectsMatte/1.0/"
    public static let appleSemanticSegmentationMatte = "http://ns.apple.com/semanticSegmentationMatte/1.0/"
}

extension XMPName {
    public static let motionPhoto = XMPName(XMPNamespace.googleCamera, "MotionPhoto", prefix: "GCamera")
    public static let motionPhotoVersion = XMPName(XMPNamespace.googleCamera, "MotionPhotoVersion", prefix: "GCamera")
    public static let motionPhotoPresentationTimestampUs = XMPName(
        XMPNamespace.googleCamera, "MotionPhotoPresentationTimestampUs", prefix: "GCamera")
    public static let microVideo = XMPName(XMPNamespace.googleCamera, "MicroVideo", prefix: "GCamera")
    public static let microVideoOffset = XMPName(XMPNamespace.googleCamera, "MicroVideoOffset", prefix: "GCamera")
    public static let containerDirectory = XMPName(XMPNamespace.container, "Directory", prefix: "Container")
    public static let containerItem = XMPName(XMPNamespace.container, "Item", prefix: "Container")
    public static let itemMime = XMPName(XMPNamespace.containerItem, "Mime", prefix: "Item")
    public static let itemSemantic = XMPName(XMPNamespace.containerItem, "Semantic", prefix: "Item")
    public static let itemLength = XMPName(XMPNamespace.containerItem, "Length", prefix: "Item")
    public static let itemPadding = XMPName(XMPNamespace.containerItem, "Padding", prefix: "Item")
    public static let appleAuxiliaryImageType = XMPName(XMPNamespace.applePixelDataInfo, "AuxiliaryImageType", prefix: "apdi")
}
