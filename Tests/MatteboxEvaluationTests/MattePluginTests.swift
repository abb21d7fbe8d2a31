import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxImageOps
import MatteboxTestSupport
import MatteboxVision
import Testing

@Suite struct MattePluginTests {
    static let mattes = """
        stages:
          - plugin: org.mattebox.portrait-matte
          - plugin: org.mattebox.semantic-mattes
        """

    @Test func noFaceMeansNoMattesAndANoteSayingWhy() throws {
        var photo = Photo(primary: TestImages.pattern(width: 320, height: 240))
        let reports = try BuiltPlugins.runner(MattePluginTests.mattes).run(&photo)
        #expect(reports.map(\.status) == [.ok, .ok])
        #expect(photo.auxiliary.isEmpty)
        #expect(photo.metadata.notes["portraitMatte"]?.contains("no face") == true)
        #expect(photo.metadata.notes["semanticMattes"]?.contains("no face") == true)
    }

    @Test(.enabled(if: BuiltVisionPlugins.eval != nil, Comment(rawValue: BuiltVisionPlugins.noEval)))
    func mattesOfASidewaysStoredPhotoLineUpWithItsUprightPrimary() throws {
        let face = BuiltVisionPlugins.eval!.appendingPathComponent("faceparsing/fasseg_frontal02/rgb/2.bmp")
        var upright = try ImageDecoder.decodePhoto(at: face)
        _ = try BuiltPlugins.runner(MattePluginTests.mattes).run(&upright)
        // The same face stored turned a quarter anticlockwise, with EXIF 6 to display it upright.
        var sideways = try ImageDecoder.decodePhoto(at: face)
        sideways.primary = try ImageGeometry.apply(.rotate270, to: sideways.primary)
        sideways.metadata.orientation = ExifOrientation(6)!
        _ = try BuiltPlugins.runner(MattePluginTests.mattes + "\n  - plugin: org.mattebox.orientation").run(&sideways)
        #expect(sideways.primary.width == upright.primary.width && sideways.primary.height == upright.primary.height)
        for role in [ImageRole.portraitMatte, .skinMatte, .hairMatte] {
            let a = try #require(upright.auxiliary[role]), b = try #require(sideways.auxiliary[role])
            #expect(a.width == b.width && a.height == b.height)
            let iou = QualityMetrics.iou(QualityMetrics.threshold(a), QualityMetrics.threshold(b))
            #expect(iou > 0.9, "\(role): IoU \(iou) between upright and sideways-stored mattes")
        }
    }
}
