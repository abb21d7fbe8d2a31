import Foundation

extension CameraDevice {
    /// The camera's controls with their current values.
    package func controls() throws -> [CameraControl] { try backend.controls(of: self) }

    /// Sets controls by name (`exposure_time_absolute=300`, `auto_exposure=manual_mode`),
    /// all checked against the device's ranges and menus before any is set. Modes
    /// (menus and switches) are set before values, so "manual exposure, 30 ms" works in
    /// one request whatever order it was written in. Returns the controls as they are after.
    @discardableResult
    package func setControls(_ requests: [(name: String, value: String)]) throws -> [CameraControl] {
        let known = try controls()
        var planned: [(CameraControl, ControlValue)] = []
        for request in requests {
            let wanted = CameraControl.name(forLabel: request.name)
            guard let control = known.first(where: { $0.name == wanted || "\($0.id)" == request.name }) else {
                throw ControlError(
                    "\(path): the camera has no control \(request.name)"
                        + " (it has: \(known.map(\.name).joined(separator: ", ")))")
            }
            let value = try control.parse(request.value)
            if let problem = control.problem(with: value) { throw ControlError("\(path): \(problem)") }
            planned.append((control, value))
        }
        let modesFirst = planned.enumerated().sorted { lhs, rhs in
            let (l, r) = (Self.isMode(lhs.element.0), Self.isMode(rhs.element.0))
            return l != r ? l : lhs.offset < rhs.offset
        }
        for (_, (control, value)) in modesFirst {
            do { try backend.setControl(control, to: value, on: self) } catch {
                throw ControlError("\(path): cannot set \(control.name) to \(value.description): \(error)")
            }
        }
        return try controls()
    }

    private static func isMode(_ control: CameraControl) -> Bool {
        control.kind == .menu || control.kind == .boolean || control.kind == .bitmask
    }
}
