import MatteboxPluginSDK
@testable import MatteboxVisionPluginKit
import Testing

/// What the vision plugins share, on its own: the common parameters and how a
/// user's model settings are read (the class-to-matte map, the normalisation
/// triples), with the messages a user sees for bad values.
@Suite struct ModelParameterTests {
    @Test func theCommonParametersAreEffortScaleCascadesAndFaces() {
        #expect(VisionParameters.common.map(\.key) == ["effort", "scale", "cascades", "faces"])
        let modelKeys = SegmentationModel.parameters(crop: 2.5, classes: "hair=17", classesHelp: "").map(\.key)
        #expect(modelKeys.contains("model-classes") && modelKeys.contains("model-crop") && modelKeys.first == "model")
    }

    @Test func aClassMapNamesMattesAndTheirClasses() throws {
        let map = try SegmentationModel.classMap("skin=1,10; hair=17 ;teeth=11", names: ["skin", "hair", "teeth"])
        #expect(map == ["skin": [1, 10], "hair": [17], "teeth": [11]])
    }

    @Test func aClassMapWithAnUnknownMatteOrNoClassesIsRefused() {
        #expect(throws: PluginError.self) { try SegmentationModel.classMap("sky=3", names: ["hair"]) }
        #expect(throws: PluginError.self) { try SegmentationModel.classMap("hair=", names: ["hair"]) }
    }

    @Test func normalisationTakesExactlyThreeNumbers() throws {
        let mean = try SegmentationModel.triple("0.5, 0.25,1", name: "model-mean")
        #expect(mean == (0.5, 0.25, 1))
        #expect(throws: PluginError.self) { try SegmentationModel.triple("0.5,0.5", name: "model-mean") }
    }
}
