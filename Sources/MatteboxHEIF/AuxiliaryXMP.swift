import Foundation
import MatteboxCore
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
        if let depth, let range = depth.valueRange {
            let isDisparity = depth.kind == .uniformDisparity || depth.kind == .nonUniformDisparity
            return wrap(
                namespaces: [
                    ("apdi", "http://ns.apple.com/pixeldatainfo/1.0/"), ("depthData", "http://ns.apple.com/depthData/1.0/"),
                ],
                attributes: [
                    ("apdi:NativeFormat", "\(isDisparity ? nativeFloatDisparity : nativeFloatDepth)"),
                    ("apdi:StoredFormat", "\(storedL008)"),
                    ("apdi:IntMinValue", "0"), ("apdi:IntMaxValue", "255"),
                    ("apdi:FloatMinValue", format(range.lowerBound)), ("apdi:FloatMaxValue", format(range.upperBound)),
                    ("apdi:AuxiliaryImageType", isDisparity ? "disparity" : "depth"),
                    ("depthData:DepthDataVersion", "65541"),
                    ("depthData:Accuracy", relative ? "relative" : "absolute"),
                    ("depthData:Filtered", "True"), ("depthData:Quality", "high"),
                ])
        }
        if role == .portraitMatte {
            return wrap(
                namespaces: [
                    ("apdi", "http://ns.apple.com/pixeldatainfo/1.0/"),
                    ("portraitEffectsMatte", "http://ns.apple.com/portraitEffectsMatte/1.0/"),
                ],
                attributes: [
                    ("apdi:NativeFormat", "\(storedL008)"), ("apdi:StoredFormat", "\(storedL008)"),
                    ("apdi:AuxiliaryImageType", "depth"), ("apdi:AuxiliaryImageSubType", "portraiteffectsmatte"),
                    ("portraitEffectsMatte:PortraitEffectsMatteVersion", "65537"),
                ])
        }
        if AuxiliaryType.isMatte(role) {
            return wrap(
                namespaces: [("semanticSegmentationMatte", "http://ns.apple.com/semanticSegmentationMatte/1.0/")],
                attributes: [("semanticSegmentationMatte:SemanticSegmentationMatteVersion", "65536")])
        }
        return nil
    }

    private static func format(_ value: Double) -> String { String(format: "%.6f", value) }

    private static func wrap(namespaces: [(String, String)], attributes: [(String, String)]) -> Data {
        let declarations = namespaces.map { "\n    xmlns:\($0.0)=\"\($0.1)\"" }.joined()
        let values = attributes.map { "\n    \($0.0)=\"\($0.1)\"" }.joined()
        let text = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Mattebox \(MatteboxVersion.current)">
             <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
              <rdf:Description rdf:about=""\(declarations)\(values)/>
             </rdf:RDF>
            </x:xmpmeta>
            """
        return Data(text.utf8)
    }
}
