import ArgumentParser
import Foundation
import MatteboxCapture
import MatteboxCaptureService
import MatteboxCore
import MatteboxRuntime

/// The cameras `devices` lists and `capture` uses: V4L2 cameras found on this
/// machine, plus replay cameras from the cameras config (`--cameras`,
/// MATTEBOX_CAMERAS, or ~/.config/mattebox/cameras.yaml). With no camera and
/// no config, the bundled cameras.yaml (installed, or next to a source checkout), or
/// else a colour-bars replay camera, so `mattebox capture` works anywhere.
struct CameraSources: ParsableArguments {
    @Option(help: "Cameras config (YAML): replay cameras and positions for real cameras.") var cameras: String?

    func configURL() -> URL? {
        if let cameras { return URL(fileURLWithPath: cameras) }
        if let path = ProcessInfo.processInfo.environment["MATTEBOX_CAMERAS"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        let user = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config/mattebox/cameras.yaml")
        return FileManager.default.fileExists(atPath: user.path) ? user : nil
    }

    /// The cameras example shipped with Mattebox (installed, or the checkout's Samples/cameras.yaml).
    static var bundledConfig: URL? { DataFolders.find("cameras.yaml") }

    func discover() throws -> [CameraDevice] {
        let config = try configURL().map(ReplayCameraConfig.load)
        var discovery = CameraDiscovery.fromEnvironment()
        discovery.positionOverrides = config?.positions ?? [:]
        var found = discovery.cameras()
        found += try config?.makeCameras(codec: ImageIOReplayPictureCodec()) ?? []
        if found.allSatisfy({ $0.problem != nil }) {
            let fallback = try Self.bundledConfig.map(ReplayCameraConfig.load) ?? ReplayCameraConfig.colourBars
            found += try fallback.makeCameras(codec: ImageIOReplayPictureCodec())
        }
        return found
    }
}
