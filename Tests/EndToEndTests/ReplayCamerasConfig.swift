import Foundation
import MatteboxTestSupport

/// A cameras config of replay cameras, written into a fresh scratch folder,
/// for the tests that run `mattebox` against cameras made of sample photos.
enum ReplayCamerasConfig {
    /// `cameras` is the YAML list under `cameras:`; `PHOTOS` in it stands for Samples/photos.
    static func write(_ scratchName: String, cameras: String) throws -> (config: URL, folder: URL) {
        let folder = try TestEnvironment.scratchDirectory(scratchName)
        let photos = TestEnvironment.packageRoot.appendingPathComponent("Samples/photos")
        let config = folder.appendingPathComponent("cameras.yaml")
        try ("cameras:\n" + cameras.replacingOccurrences(of: "PHOTOS", with: photos.path)).write(to: config, atomically: true, encoding: .utf8)
        return (config, folder)
    }
}
