import MatteboxCore
import MatteboxImageIO
import MatteboxImageOps
import MatteboxRuntime
import MatteboxTestSupport
import Testing

@Suite struct GeometryTests {
    @Test func rotationsAndFlipsMoveKnownPixels() throws {
        let image = TestImages.pattern(width: 6, height: 4)
        let turned = try ImageGeometry.apply(.rotate90, to: image)
        #expect(turned.width == 4 && turned.height == 6)
        // Clockwise: the top-left pixel goes to the top-right corner.
        #expect(turned.sample(x: 3, y: 0, channel: 2) == image.sample(x: 0, y: 0, channel: 2))
        let flipped = try ImageGeometry.apply(.flipHorizontal, to: image)
        #expect(flipped.sample(x: 5, y: 1, channel: 0) == image.sample(x: 0, y: 1, channel: 0))
        let back = try ImageGeometry.apply(.rotate270, to: turned)
        #expect(back.hasSamePixels(as: image))
    }

    @Test func photoWideTransformsKeepAuxiliaryImagesRegistered() throws {
        var photo = Photo(primary: TestImages.pattern(width: 40, height: 20))
        photo.auxiliary[.depth] = TestImages.matte(width: 20, height: 10, format: .uint16)
        photo.auxiliary[.portraitMatte] = TestImages.matte(width: 40, height: 20)
        let depthBefore = photo.auxiliary[.depth]!
        try photo.apply(.rotate90)
        #expect(photo.primary.width == 20 && photo.primary.height == 40)
        #expect(photo.auxiliary[.depth]!.width == 10 && photo.auxiliary[.depth]!.height == 20)
        #expect(photo.auxiliary[.depth]!.format == .uint16)
        #expect(try ImageGeometry.apply(.rotate270, to: photo.auxiliary[.depth]!).hasSamePixels(as: depthBefore))
    }

    @Test func cropScalesToEachAuxiliaryResolution() throws {
        var photo = Photo(primary: TestImages.pattern(width: 40, height: 20))
        photo.auxiliary[.depth] = TestImages.matte(width: 20, height: 10)
        try photo.crop(x: 10, y: 4, width: 20, height: 10)
        #expect(photo.primary.width == 20 && photo.primary.height == 10)
        #expect(photo.auxiliary[.depth]!.width == 10 && photo.auxiliary[.depth]!.height == 5)
        #expect(throws: MatteboxError.self) { try photo.crop(x: 15, y: 0, width: 10, height: 5) }
    }
}
