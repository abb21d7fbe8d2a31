import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxPipeline
import MatteboxTestSupport
import Testing

@testable import MatteboxPluginHost

/// The ABI 1.1 `output.*` keys a packaging stage sets for the sink.
@Suite struct OutputRequestKeyTests {
    var photo = Photo(primary: TestImages.pattern())

    @Test mutating func validValuesReachTheOutputRequest() throws {
        try MetadataAccess.setString("output.format", "heic", on: &photo, services: ImageIOPhotoServices())
        try MetadataAccess.setString("output.encoderPreset", "slow", on: &photo, services: ImageIOPhotoServices())
        try MetadataAccess.setInteger("output.quality", 60, on: &photo)
        try MetadataAccess.setInteger("output.thumbnailSize", 0, on: &photo)
        #expect(photo.metadata.output.format == "heic")
        #expect(photo.metadata.output.encoderPreset == "slow")
        #expect(photo.metadata.output.quality == 60)
        #expect(photo.metadata.output.thumbnailSize == 0)
        #expect(try MetadataAccess.integer("output.quality", of: photo) == 60)
        #expect(try MetadataAccess.string("output.format", of: photo) == "heic")
    }

    @Test mutating func badValuesAreRefusedWithTheChoices() {
        #expect(throws: MetadataAccess.Failure.self) { try MetadataAccess.setString("output.format", "gif", on: &photo, services: ImageIOPhotoServices()) }
        #expect(throws: MetadataAccess.Failure.self) { try MetadataAccess.setInteger("output.quality", 0, on: &photo) }
        #expect(throws: MetadataAccess.Failure.self) { try MetadataAccess.setString("output.encoderPreset", "placebo", on: &photo, services: ImageIOPhotoServices()) }
        #expect(photo.metadata.output == OutputRequest())
        // Unset keys read as absent, not as a default.
        #expect(throws: MetadataAccess.Failure.self) { try MetadataAccess.integer("output.quality", of: photo) }
    }
}

/// `input.format`: the container the photo was read from, whatever it is, and absent for a photo made in memory (a capture).
@Suite struct InputFormatKeyTests {
    @Test func namesTheContainerTheFileWasReadFrom() throws {
        let folder = try TestEnvironment.scratchDirectory("input-format")
        let png = folder.appendingPathComponent("a.png")
        try TestImages.writePhoto(to: png, orientation: 1)
        #expect(try MetadataAccess.string("input.format", of: try ImageDecoder.decodePhoto(at: png)) == "png")
        let jpeg = TestEnvironment.packageRoot.appendingPathComponent("Samples/cameras/astronaut.jpg")
        #expect(try MetadataAccess.string("input.format", of: try ImageDecoder.decodePhoto(at: jpeg)) == "jpeg")
        #expect(throws: MetadataAccess.Failure.self) { try MetadataAccess.string("input.format", of: Photo(primary: TestImages.pattern())) }
    }
}

/// ABI 1.3 `shared.<name>`: values one stage leaves for the next, read back and
/// removed by name, refused with a bad name, and never written into the file.
@Suite struct SharedValueKeyTests {
    @Test func aSharedValueIsReadByLaterStagesButNeverWritten() throws {
        var photo = Photo(primary: TestImages.pattern())
        try MetadataAccess.setString("shared.vision.face", "{\"marker\":\"shared-value-7319\"}", on: &photo, services: ImageIOPhotoServices())
        #expect(try MetadataAccess.string("shared.vision.face", of: photo) == "{\"marker\":\"shared-value-7319\"}")
        #expect(throws: MetadataAccess.Failure.self) {
            try MetadataAccess.setString("shared.a b", "x", on: &photo, services: ImageIOPhotoServices())
        }
        for format in [OutputFormat.jpeg, .heic, .png] {
            let bytes = String(decoding: try ImageEncoder.encode(photo, as: format), as: UTF8.self)
            #expect(!bytes.contains("shared-value-7319"), "\(format): the shared value was written into the file")
        }
        try MetadataAccess.remove("shared.vision.face", from: &photo)
        #expect(throws: MetadataAccess.Failure.self) { try MetadataAccess.string("shared.vision.face", of: photo) }
    }
}
