import ArgumentParser
import Foundation
import MatteboxCapture
import MatteboxRuntime

/// `mattebox controls`: a camera's V4L2 controls (what v4l2-ctl -l shows), and setting them by name.
struct ControlsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "controls",
        abstract: "List a camera's controls (exposure, gain, white balance, focus, ...) or set them: NAME=VALUE.",
        discussion: """
            Lists every control the camera offers, with its range, step, default and current value, \
            as the device reports them (VIDIOC_QUERY_EXT_CTRL, menus through VIDIOC_QUERYMENU). \
            Names are v4l2-ctl's (exposure_time_absolute, auto_exposure, white_balance_automatic, ...). \
            A value is a number, a menu entry's name (auto_exposure=manual_mode), on/off for \
            switches, or left,top,width,height for a rectangle (UVC's region_of_interest_rectangle). \
            Automatic modes are set before values, so `auto_exposure=manual_mode \
            exposure_time_absolute=500` works in either order. Exposure time is in 100 µs units, as \
            UVC defines it. Replay cameras live in the process that uses them: a value set here is \
            gone when this command ends (use `mattebox serve` to change them while they stream).
            """)

    @OptionGroup var verbosity: Verbosity
    @OptionGroup var sources: CameraSources
    @OptionGroup var camera: CameraChoice
    @Flag(help: "Print JSON instead of text.") var json = false
    @Argument(help: "Controls to set, as NAME=VALUE.") var settings: [String] = []

    func validate() throws {
        for setting in settings where !setting.contains("=") || setting.hasPrefix("=") {
            throw ValidationError("\(setting): a control is set as NAME=VALUE (see `mattebox controls` for the names)")
        }
    }

    func run() throws {
        let device = try camera.choose(from: try sources.discover())
        let requests = settings.map { setting -> (name: String, value: String) in
            let parts = setting.split(separator: "=", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
        let controls: [CameraControl]
        do {
            controls = requests.isEmpty ? try device.controls() : try device.setControls(requests)
        } catch let error as ControlError {
            throw MatteboxError(error.description)
        }
        if json { return try JSONOutput.print(Report(camera: device.id, path: device.path, controls: controls)) }
        print("\(device.name) (\(device.path))")
        if controls.isEmpty { print("  no controls") }
        for control in controls { print("  " + Self.line(control)) }
    }

    private struct Report: Encodable {
        var camera: String
        var path: String
        var controls: [CameraControl]
    }

    /// One control as v4l2-ctl -L prints it, roughly: name, kind, range, default, value, flags.
    static func line(_ control: CameraControl) -> String {
        var text = "\(control.name) (\(control.kind.rawValue))"
        switch control.kind {
        case .integer: text += " : min=\(control.minimum) max=\(control.maximum) step=\(control.step) default=\(control.defaultValue)"
        case .boolean, .menu, .integerMenu, .bitmask: text += " : default=\(control.defaultValue)"
        default: text += " :"
        }
        if let value = control.value { text += " value=\(value.description)" }
        if let entry = control.menu.first(where: { .integer($0.value) == control.value }) { text += " (\(entry.name))" }
        var flags: [String] = []
        if control.readOnly { flags.append("read-only") }
        if control.inactive { flags.append("inactive") }
        if !flags.isEmpty { text += " flags=\(flags.joined(separator: ","))" }
        for entry in control.menu { text += "\n      \(entry.value): \(entry.name)" }
        return text
    }
}
