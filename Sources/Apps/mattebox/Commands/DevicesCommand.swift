import ArgumentParser
import Foundation
import MatteboxCapture

/// `mattebox devices`: the cameras a capture can use, with what decided
/// their position, their rotation, and every format, size and frame rate.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List cameras: name, stable id, position, sensor rotation, formats, sizes and frame rates.",
        discussion: """
            Finds V4L2 capture nodes under /sys/class/video4linux (MATTEBOX_SYSTEM_ROOT points at \
            another root). Position comes from the V4L2 orientation control, else sysfs \
            physical_location, else removable/fixed, else the cameras config. Replay cameras from the \
            cameras config are listed too; with no camera at all, the bundled replay cameras are. \
            The default camera (marked *) is the first back camera, else front, else external.
            """)

    @OptionGroup var verbosity: Verbosity
    @OptionGroup var sources: CameraSources
    @Flag(help: "Print JSON instead of text.") var json = false

    func run() throws {
        let cameras = try sources.discover()
        if json { return try JSONOutput.print(["cameras": cameras]) }
        if cameras.isEmpty { print("no cameras found") }
        let chosen = cameras.defaultCamera?.id
        for camera in cameras {
            let mark = camera.id == chosen ? "*" : " "
            print("\(mark) \(camera.name)\(camera.isReplay ? " (replay)" : "")")
            print("    id: \(camera.id)")
            print((["    path: \(camera.path)"] + camera.details.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }).joined(separator: "  "))
            print("    position: \(camera.position.rawValue) (from \(camera.positionSource))  sensor rotation: \(camera.sensorRotation)°")
            if let problem = camera.problem { print("    unusable: \(problem)") }
            for format in camera.formats {
                let sizes = format.sizes.map { size in
                    "\(size.width)x\(size.height)@" + size.framesPerSecond.map { String(format: "%g", $0) }.joined(separator: "/")
                }
                print("    \(format.fourcc) (\(format.description)): \(sizes.joined(separator: ", "))")
            }
        }
    }
}
