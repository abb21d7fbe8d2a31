import CV4L2
import Foundation

/// V4L2 controls through the extended-control ioctls: every control the
/// device lists (VIDIOC_QUERY_EXT_CTRL with NEXT_CTRL and NEXT_COMPOUND, so
/// compound controls such as UVC's region of interest are seen too), menu
/// entries (VIDIOC_QUERYMENU), and values read and written with
/// VIDIOC_G/S_EXT_CTRLS. Controls may be used on any open handle, also while
/// another handle streams.
extension V4L2Device {
    package func queryControls() throws(V4L2Error) -> [CameraControl] {
        var controls: [CameraControl] = []
        let next = MBX_CTRL_FLAG_NEXT_CTRL | MBX_CTRL_FLAG_NEXT_COMPOUND
        var query = v4l2_query_ext_ctrl()
        query.id = next
        for _ in 0..<1024 {
            do { try call("VIDIOC_QUERY_EXT_CTRL", MBX_VIDIOC_QUERY_EXT_CTRL, &query) } catch where error.code == EINVAL {
                break
            }
            defer {
                let reached = query.id
                query = v4l2_query_ext_ctrl()
                query.id = reached | next
            }
            guard query.flags & MBX_CTRL_FLAG_DISABLED == 0, let kind = Self.kind(query.type) else { continue }
            let menu = kind == .menu || kind == .integerMenu ? menuItems(query) : []
            let readable = query.flags & MBX_CTRL_FLAG_WRITE_ONLY == 0 && kind != .button
            controls.append(CameraControl(
                id: query.id, label: cString(query.name), kind: kind, minimum: query.minimum, maximum: query.maximum,
                step: Int64(clamping: query.step), defaultValue: query.default_value,
                value: readable ? try? controlValue(query.id, kind: kind) : nil, menu: menu,
                readOnly: query.flags & MBX_CTRL_FLAG_READ_ONLY != 0, inactive: query.flags & MBX_CTRL_FLAG_INACTIVE != 0))
        }
        return controls
    }

    /// A control's current value (VIDIOC_G_EXT_CTRLS, current value).
    package func controlValue(_ id: UInt32, kind: CameraControl.Kind) throws -> ControlValue {
        var rectangle = v4l2_rect()
        var control = v4l2_ext_control()
        control.id = id
        return try withUnsafeMutablePointer(to: &rectangle) { rect in
            if kind == .rectangle {
                control.size = UInt32(MemoryLayout<v4l2_rect>.size)
                control.ptr = UnsafeMutableRawPointer(rect)
            }
            try extendedControls("VIDIOC_G_EXT_CTRLS", MBX_VIDIOC_G_EXT_CTRLS, &control)
            if kind == .rectangle {
                let r = rect.pointee
                return .rectangle(ControlRectangle(left: r.left, top: r.top, width: Int32(r.width), height: Int32(r.height)))
            }
            return .integer(control.value64)
        }
    }

    /// Sets one control (VIDIOC_S_EXT_CTRLS); the driver may clamp an integer to its range and step.
    package func setControl(_ id: UInt32, to value: ControlValue) throws {
        var control = v4l2_ext_control()
        control.id = id
        switch value {
        case .integer(let number):
            control.value64 = number
            try extendedControls("VIDIOC_S_EXT_CTRLS", MBX_VIDIOC_S_EXT_CTRLS, &control)
        case .rectangle(let r):
            var rect = v4l2_rect(left: r.left, top: r.top, width: UInt32(r.width), height: UInt32(r.height))
            try withUnsafeMutablePointer(to: &rect) { pointer in
                control.size = UInt32(MemoryLayout<v4l2_rect>.size)
                control.ptr = UnsafeMutableRawPointer(pointer)
                try extendedControls("VIDIOC_S_EXT_CTRLS", MBX_VIDIOC_S_EXT_CTRLS, &control)
            }
        }
    }

    /// One control through the extended-control ioctls (which = current value, any class).
    private func extendedControls(_ name: String, _ request: UInt, _ control: inout v4l2_ext_control) throws {
        try withUnsafeMutablePointer(to: &control) { pointer in
            var controls = v4l2_ext_controls()
            controls.which = 0  // V4L2_CTRL_WHICH_CUR_VAL
            controls.count = 1
            controls.controls = pointer
            try call(name, request, &controls)
        }
    }

    private func menuItems(_ query: v4l2_query_ext_ctrl) -> [CameraControl.MenuItem] {
        guard query.minimum >= 0, query.maximum >= query.minimum, query.maximum - query.minimum < 256 else { return [] }
        var items: [CameraControl.MenuItem] = []
        for index in query.minimum...query.maximum {
            var menu = v4l2_querymenu()
            menu.id = query.id
            menu.index = UInt32(index)
            // Drivers leave holes in menus (EINVAL for an index not offered).
            guard (try? call("VIDIOC_QUERYMENU", MBX_VIDIOC_QUERYMENU, &menu)) != nil else { continue }
            let name = query.type == V4L2_CTRL_TYPE_INTEGER_MENU.rawValue ? "\(menu.value)" : cString(menu.name)
            items.append(CameraControl.MenuItem(value: index, name: name))
        }
        return items
    }

    private static func kind(_ type: UInt32) -> CameraControl.Kind? {
        switch type {
        case V4L2_CTRL_TYPE_INTEGER.rawValue, V4L2_CTRL_TYPE_INTEGER64.rawValue: return .integer
        case V4L2_CTRL_TYPE_BOOLEAN.rawValue: return .boolean
        case V4L2_CTRL_TYPE_MENU.rawValue: return .menu
        case V4L2_CTRL_TYPE_INTEGER_MENU.rawValue: return .integerMenu
        case V4L2_CTRL_TYPE_BITMASK.rawValue: return .bitmask
        case V4L2_CTRL_TYPE_BUTTON.rawValue: return .button
        case MBX_CTRL_TYPE_RECT: return .rectangle
        case V4L2_CTRL_TYPE_CTRL_CLASS.rawValue: return nil  // a heading, not a control
        default: return .other
        }
    }
}
