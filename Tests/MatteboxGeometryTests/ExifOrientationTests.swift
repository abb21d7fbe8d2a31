import MatteboxGeometry
import Testing

@Suite struct ExifOrientationTests {
    @Test func tagValuesOutsideOneToEightAreRejected() {
        #expect(ExifOrientation(0) == nil)
        #expect(ExifOrientation(9) == nil)
        #expect(ExifOrientation(8) != nil)
    }

    @Test func mirroredTagsAreTwoFourFiveSeven() {
        let mirrored = (1...8).filter { ExifOrientation($0)!.isMirrored }
        #expect(mirrored == [2, 4, 5, 7])
        let swapping = (1...8).filter { ExifOrientation($0)!.swapsDimensions }
        #expect(swapping == [5, 6, 7, 8])
    }

    @Test(arguments: 1...8)
    func mirroringOnDisplayTogglesMirrorAndUndoesItself(tag: Int) {
        let orientation = ExifOrientation(tag)!
        let mirrored = orientation.mirroredOnDisplay
        #expect(mirrored.isMirrored != orientation.isMirrored)
        #expect(mirrored.swapsDimensions == orientation.swapsDimensions)
        #expect(mirrored.mirroredOnDisplay == orientation)
    }

    @Test func mirroringKnownOrientations() {
        // Upright mirrored is tag 2; rotated 90 cw (6) mirrored is tag 5 (transpose) as viewers show it.
        #expect(ExifOrientation(1)!.mirroredOnDisplay.rawValue == 2)
        #expect(ExifOrientation(3)!.mirroredOnDisplay.rawValue == 4)
        #expect(ExifOrientation(6)!.mirroredOnDisplay.rawValue == 5)
        #expect(ExifOrientation(8)!.mirroredOnDisplay.rawValue == 7)
    }
}
