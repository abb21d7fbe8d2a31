import Foundation
import MatteboxCore
import MatteboxISOBMFF
import MatteboxTestSupport
import Testing

@testable import MatteboxHEIF

/// Each matte is stored as its own encode with the matte preset (issue 45):
/// byte for byte what encoding that matte alone gives, the items in the
/// roles' order; an auxiliary image that cannot be stored fails the write
/// naming it, not silently.
@Suite struct AuxiliaryEncodingTests {
    let options = HEIFWriteOptions(quality: 70, preset: "ultrafast")

    func matte(_ seed: Int) -> PixelImage {
        let image = PixelImage(width: 48, height: 64, channels: 1, format: .uint8)
        let bytes = image.data.assumingMemoryBound(to: UInt8.self)
        for y in 0..<image.height {
            for x in 0..<image.width { bytes[y * image.bytesPerRow + x] = UInt8((x * 5 + y * 3 + seed * 40) % 256) }
        }
        return image
    }

    @Test func eachMatteIsStoredAsItsOwnEncodeInTheRolesOrder() throws {
        var photo = Photo(primary: TestPhotos.smooth(width: 96, height: 128))
        let roles: [ImageRole] = [.portraitMatte, .skinMatte, .hairMatte, .teethMatte]
        for (seed, role) in roles.enumerated() { photo.setAuxiliary(matte(seed), for: role) }
        let file = try HEIFFile(bytes: try HEIFWriter.build(photo, options: options))

        var written: [(urn: String, data: [UInt8])] = []
        for id in file.items(referencing: file.primaryID, by: "auxl").sorted() {
            guard case .auxiliaryType(let urn, _)? = file.property("auxC", of: id)?.value else { continue }
            written.append((urn, try file.data(of: id)))
        }
        let expectedOrder = roles.sorted().map { AuxiliaryType.urn(for: $0, info: nil) }
        #expect(written.map(\.urn) == expectedOrder)
        var settings = ItemCodecSettings(quality: options.quality, preset: HEIFWriteOptions.matteEncoderPreset)
        settings.bitDepth = 8
        for (role, stored) in zip(roles.sorted(), written) {
            let alone = try HEVCCodec().encode(photo.auxiliary[role]!, settings: settings).image
            #expect(stored.data == alone.data, "\(role): the stored matte is not its own encode")
        }
    }

    @Test func anAuxiliaryImageThatCannotBeStoredFailsTheWriteNamingIt() throws {
        var photo = Photo(primary: TestPhotos.smooth(width: 96, height: 128))
        photo.setAuxiliary(matte(1), for: .portraitMatte)
        // Metric depth of zeros only: it has no range to store, so the write must say so.
        photo.setAuxiliary(PixelImage(width: 48, height: 64, channels: 1, format: .float32), for: .depth)
        #expect {
            _ = try HEIFWriter.build(photo, options: options)
        } throws: { error in
            "\(error)".contains("depth has no valid values")
        }
    }
}
