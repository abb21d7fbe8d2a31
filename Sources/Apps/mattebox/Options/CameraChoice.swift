import ArgumentParser
import Foundation
import MatteboxCapture
import MatteboxRuntime

/// Which camera a command uses: `--device ID`, `--front` or `--back`, else the default camera.
struct CameraChoice: ParsableArguments {
    @Option(help: "Camera id, path or name (see `mattebox devices`).") var device: String?
    @Flag(help: "Use the front camera.") var front = false
    @Flag(help: "Use the back camera.") var back = false

    func validate() throws {
        guard [device != nil, front, back].filter({ $0 }).count <= 1 else {
            throw ValidationError("choose one of --device, --front and --back")
        }
    }

    func choose(from cameras: [CameraDevice]) throws -> CameraDevice {
        let chosen: CameraDevice?
        if let device {
            chosen = cameras.camera(matching: device)
        } else if front || back {
            chosen = cameras.camera(at: front ? .front : .back)
        } else {
            chosen = cameras.defaultCamera
        }
        guard let chosen else {
            let wanted = device ?? (front ? "a front camera" : back ? "a back camera" : "a usable camera")
            throw MatteboxError("no camera matches \(wanted); `mattebox devices` lists them")
        }
        if let problem = chosen.problem { throw MatteboxError(problem) }
        return chosen
    }
}
