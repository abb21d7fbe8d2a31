import Foundation
import MatteboxCore
import MatteboxMetadata
import MatteboxRuntime

/// The XMP packets iPhones attach to auxiliary images: Apple's pixel data info
/// (`apdi`) and depth data for depth and disparity, the matte version tags for
/// portrait and semantic mattes. Written when an image has no XMP of its own
/// that still holds (one read from a file and left unchanged).
enum AuxiliaryXMP {
    private static let storedL008 = 1_278_226_488  // 'L008'
    private static let nativeFloatDisparity = 1_717_856_627  // 'fdis'
    private static let nativeFloatDepth = 1_717_855_600  // 'fdep'

    static func packet(for role: ImageRole, depth: DepthRepresentation?, relative: Bool) -> Data? {
        let apdi = { (name: String) in XMPName(XMPNamespace.applePixelDataInfo, name, prefix: "apdi") }
        if let depth, let range = depth.valueRange {
            let isDisparity = depth.kind == .uniformDisparity || depth.kind == .nonUniformDisparity
            let depthData = { (name: String) in XMPName(XMPNamespace.appleDepthData, name, prefix: "depthData") }
            return packet([
                (apdi("NativeFormat"), "\(isDisparity ? nativeFloatDisparity : nativeFloatDepth)"),
                (apdi("StoredFormat"), "\(storedL008)"),
                (apdi("IntMinValue"), "0"), (apdi("IntMaxValue"), "255"),
                (apdi("FloatMinValue"), format(range.lowerBound)), (apdi("FloatMaxValue"), format(range.upperBound)),
                (apdi("AuxiliaryImageType"), isDisparity ? "disparity" : "depth"),
                (depthData("DepthDataVersion"), "65541"),
                (depthData("Accuracy"), relative ? "relative" : "absolute"),
                (depthData("Filtered"), "True"), (depthData("Quality"), "high"),
            ])
        }
        if role == .portraitMatte {
            return packet([
                (apdi("NativeFormat"), "\(storedL008)"), (apdi("StoredFormat"), "\(storedL008)"),
                (apdi("AuxiliaryImageType"), "depth"), (apdi("AuxiliaryImageSubType"), "portraiteffectsmatte"),
                (XMPName(XMPNamespace.applePortraitEffectsMatte, "PortraitEffectsMatteVersion", prefix: "portraitEffectsMatte"), "65537"),
            ])
        }
        if AuxiliaryType.isMatte(role) {
            let version = XMPName(
                XMPNamespace.appleSemanticSegmentationMatte, "SemanticSegmentationMatteVersion", prefix: "semanticSegmentationMatte")
            return packet([(version, "65536")])
        }
        return nil
    }

    private static func format(_ value: Double) -> String { String(format: "%.6f", value) }

    private static func packet(_ properties: [(XMPName, String)]) -> Data {
        var packet = XMPPacket(toolkit: "Mattebox \(MatteboxVersion.current)")
        for (name, value) in properties { packet.set(name, to: value) }
        return packet.data
    }
}
