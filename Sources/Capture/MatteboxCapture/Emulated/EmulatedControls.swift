import CV4L2
import Foundation
import MatteboxCore

/// How an emulated camera's controls change its pictures: exposure and gain
/// brighten, brightness lifts, contrast and saturation stretch, a manual
/// white balance tints. The identity look leaves a picture as it is.
package struct FrameLook: Hashable, Sendable {
    /// Exposure times gain, relative to the automatic exposure.
    package var scale = 1.0
    /// Added to every channel, in 8-bit levels.
    package var offset = 0.0
    package var contrast = 1.0
    package var saturation = 1.0
    package var redGain = 1.0
    package var blueGain = 1.0

    package static let natural = FrameLook()

    /// The look applied to 8-bit RGB pixels, in place.
    func apply(to image: PixelImage) {
        guard self != .natural else { return }
        let pixels = image.data.assumingMemoryBound(to: UInt8.self)
        let gains = (scale * redGain, scale, scale * blueGain)
        for index in stride(from: 0, to: image.width * image.height * 3, by: 3) {
            var r = Double(pixels[index]) * gains.0
            var g = Double(pixels[index + 1]) * gains.1
            var b = Double(pixels[index + 2]) * gains.2
            let luma = 0.299 * r + 0.587 * g + 0.114 * b
            r = luma + (r - luma) * saturation
            g = luma + (g - luma) * saturation
            b = luma + (b - luma) * saturation
            pixels[index] = Self.level((r - 128) * contrast + 128 + offset)
            pixels[index + 1] = Self.level((g - 128) * contrast + 128 + offset)
            pixels[index + 2] = Self.level((b - 128) * contrast + 128 + offset)
        }
    }

    private static func level(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }
}

/// The controls of an emulated camera, with the IDs, names, ranges and
/// defaults of a typical UVC webcam (and, when the spec asks, UVC's region of
/// interest for tap to focus and expose), answering the control ioctls as the
/// kernel's control framework does: NEXT_CTRL/NEXT_COMPOUND enumeration,
/// menus with their entries, integers clamped to range and step, read-only
/// controls refused with EACCES, and exposure time, white-balance temperature
/// and focus flagged inactive while their automatic mode is on. Used under
/// the owning `EmulatedV4L2`'s lock.
final class EmulatedControls {
    struct Definition {
        var id: UInt32
        var label: String
        var type: UInt32
        var minimum: Int64
        var maximum: Int64
        var step: Int64 = 1
        var defaultValue: Int64
        var menu: [Int64: String] = [:]
        var readOnly = false

        var isCompound: Bool { type == MBX_CTRL_TYPE_RECT }
    }

    let definitions: [Definition]
    private var values: [UInt32: Int64] = [:]
    private(set) var regionOfInterest: v4l2_rect
    private let frameWidth: () -> Int32
    private let frameHeight: () -> Int32

    init(spec: EmulatedCameraSpec, frameSize: @escaping () -> FrameSize) {
        frameWidth = { Int32(frameSize().width) }
        frameHeight = { Int32(frameSize().height) }
        let size = frameSize()
        regionOfInterest = v4l2_rect(left: 0, top: 0, width: UInt32(size.width), height: UInt32(size.height))
        definitions = Self.definitions(for: spec).sorted { $0.id < $1.id }
        for definition in definitions where !definition.isCompound { values[definition.id] = definition.defaultValue }
    }

    private static func definitions(for spec: EmulatedCameraSpec) -> [Definition] {
        var list: [Definition] = []
        if let orientation = spec.orientation, orientation != .unspecified {
            let value: Int64
            switch orientation {
            case .front: value = Int64(MBX_CAMERA_ORIENTATION_FRONT)
            case .back: value = Int64(MBX_CAMERA_ORIENTATION_BACK)
            default: value = Int64(MBX_CAMERA_ORIENTATION_EXTERNAL)
            }
            list.append(Definition(
                id: MBX_CID_CAMERA_ORIENTATION, label: "Camera Orientation", type: V4L2_CTRL_TYPE_MENU.rawValue, minimum: 0,
                maximum: 2, defaultValue: value, menu: [0: "Front", 1: "Back", 2: "External"], readOnly: true))
        }
        if let rotation = spec.sensorRotation {
            list.append(Definition(
                id: MBX_CID_CAMERA_SENSOR_ROTATION, label: "Camera Sensor Rotation", type: V4L2_CTRL_TYPE_INTEGER.rawValue,
                minimum: 0, maximum: 270, step: 90, defaultValue: Int64(rotation), readOnly: true))
        }
        guard spec.pictureControls else { return list }
        let integer = V4L2_CTRL_TYPE_INTEGER.rawValue, boolean = V4L2_CTRL_TYPE_BOOLEAN.rawValue
        let menu = V4L2_CTRL_TYPE_MENU.rawValue
        list += [
            Definition(id: MBX_CID_BRIGHTNESS, label: "Brightness", type: integer, minimum: -64, maximum: 64, defaultValue: 0),
            Definition(id: MBX_CID_CONTRAST, label: "Contrast", type: integer, minimum: 0, maximum: 100, defaultValue: 50),
            Definition(id: MBX_CID_SATURATION, label: "Saturation", type: integer, minimum: 0, maximum: 100, defaultValue: 50),
            Definition(id: MBX_CID_AUTO_WHITE_BALANCE, label: "White Balance, Automatic", type: boolean, minimum: 0, maximum: 1, defaultValue: 1),
            Definition(id: MBX_CID_GAIN, label: "Gain", type: integer, minimum: 0, maximum: 100, defaultValue: 0),
            Definition(
                id: MBX_CID_POWER_LINE_FREQUENCY, label: "Power Line Frequency", type: menu, minimum: 0, maximum: 2, defaultValue: 1,
                menu: [0: "Disabled", 1: "50 Hz", 2: "60 Hz"]),
            Definition(
                id: MBX_CID_WHITE_BALANCE_TEMPERATURE, label: "White Balance Temperature", type: integer, minimum: 2800,
                maximum: 6500, step: 10, defaultValue: 4600),
            Definition(
                id: MBX_CID_EXPOSURE_AUTO, label: "Auto Exposure", type: menu, minimum: 0, maximum: 3,
                defaultValue: Int64(MBX_EXPOSURE_APERTURE_PRIORITY),
                menu: [Int64(MBX_EXPOSURE_MANUAL): "Manual Mode", Int64(MBX_EXPOSURE_APERTURE_PRIORITY): "Aperture Priority Mode"]),
            // 100 µs units, as UVC: 3 (0.3 ms) to 2047 (205 ms); 250 is what the automatic exposure settles on.
            Definition(
                id: MBX_CID_EXPOSURE_ABSOLUTE, label: "Exposure Time, Absolute", type: integer, minimum: 3, maximum: 2047,
                defaultValue: 250),
            Definition(id: MBX_CID_FOCUS_ABSOLUTE, label: "Focus, Absolute", type: integer, minimum: 0, maximum: 250, step: 5, defaultValue: 0),
            Definition(id: MBX_CID_FOCUS_AUTO, label: "Focus, Automatic Continuous", type: boolean, minimum: 0, maximum: 1, defaultValue: 1),
        ]
        if spec.regionOfInterest {
            list += [
                Definition(
                    id: MBX_CID_UVC_REGION_OF_INTEREST_RECT, label: "Region of Interest Rectangle", type: MBX_CTRL_TYPE_RECT,
                    minimum: 0, maximum: 0, defaultValue: 0),
                // Bits: auto exposure 1, iris 2, white balance 4, focus 8 (UVC 1.5's bmAutoControls).
                Definition(
                    id: MBX_CID_UVC_REGION_OF_INTEREST_AUTO, label: "Region of Interest Auto Ctrls",
                    type: V4L2_CTRL_TYPE_BITMASK.rawValue, minimum: 0, maximum: 0xFF, defaultValue: 0x1 | 0x8),
            ]
        }
        return list
    }

    // MARK: What the controls do to frames

    var look: FrameLook {
        guard definitions.contains(where: { $0.id == MBX_CID_EXPOSURE_ABSOLUTE }) else { return .natural }
        var look = FrameLook()
        if values[MBX_CID_EXPOSURE_AUTO] == Int64(MBX_EXPOSURE_MANUAL) {
            look.scale = Double(values[MBX_CID_EXPOSURE_ABSOLUTE] ?? 250) / 250
        }
        look.scale *= 1 + Double(values[MBX_CID_GAIN] ?? 0) / 100
        look.offset = Double(values[MBX_CID_BRIGHTNESS] ?? 0)
        look.contrast = Double(values[MBX_CID_CONTRAST] ?? 50) / 50
        look.saturation = Double(values[MBX_CID_SATURATION] ?? 50) / 50
        if values[MBX_CID_AUTO_WHITE_BALANCE] == 0 {
            // The camera corrects for the light it is told: a low temperature setting cools the picture.
            let ratio = 4600 / Double(values[MBX_CID_WHITE_BALANCE_TEMPERATURE] ?? 4600)
            look.blueGain = ratio
            look.redGain = 1 / ratio
        }
        return look
    }

    func value(_ id: UInt32) -> Int64? { values[id] }

    // MARK: The ioctls

    /// The kernel's answer to a control ioctl (0 or an errno), or nil when `request` is not one.
    func handle(_ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32? {
        switch request {
        case MBX_VIDIOC_QUERYCTRL: return queryLegacy(argument.assumingMemoryBound(to: v4l2_queryctrl.self))
        case MBX_VIDIOC_QUERY_EXT_CTRL: return queryExtended(argument.assumingMemoryBound(to: v4l2_query_ext_ctrl.self))
        case MBX_VIDIOC_QUERYMENU: return queryMenu(argument.assumingMemoryBound(to: v4l2_querymenu.self))
        case MBX_VIDIOC_G_CTRL:
            let control = argument.assumingMemoryBound(to: v4l2_control.self)
            guard let definition = find(control.pointee.id), !definition.isCompound else { return EINVAL }
            control.pointee.value = Int32(truncatingIfNeeded: values[definition.id] ?? 0)
            return 0
        case MBX_VIDIOC_S_CTRL:
            let control = argument.assumingMemoryBound(to: v4l2_control.self)
            guard let definition = find(control.pointee.id), !definition.isCompound else { return EINVAL }
            let result = set(definition, Int64(control.pointee.value))
            control.pointee.value = Int32(truncatingIfNeeded: values[definition.id] ?? 0)
            return result
        case MBX_VIDIOC_G_EXT_CTRLS, MBX_VIDIOC_S_EXT_CTRLS:
            return extended(argument.assumingMemoryBound(to: v4l2_ext_controls.self), set: request == MBX_VIDIOC_S_EXT_CTRLS)
        default:
            return nil
        }
    }

    private func find(_ id: UInt32) -> Definition? { definitions.first { $0.id == id } }

    /// The control `raw` asks for: itself, or with NEXT flags the next one after it.
    private func lookUp(_ raw: UInt32, compoundAllowed: Bool) -> Definition? {
        let next = raw & (MBX_CTRL_FLAG_NEXT_CTRL | MBX_CTRL_FLAG_NEXT_COMPOUND)
        let id = raw & ~(MBX_CTRL_FLAG_NEXT_CTRL | MBX_CTRL_FLAG_NEXT_COMPOUND)
        guard next != 0 else { return find(id).flatMap { !$0.isCompound || compoundAllowed ? $0 : nil } }
        let wantPlain = next & MBX_CTRL_FLAG_NEXT_CTRL != 0
        let wantCompound = compoundAllowed && next & MBX_CTRL_FLAG_NEXT_COMPOUND != 0
        return definitions.first { $0.id > id && ($0.isCompound ? wantCompound : wantPlain) }
    }

    private func flags(_ definition: Definition) -> UInt32 {
        var flags: UInt32 = definition.readOnly ? MBX_CTRL_FLAG_READ_ONLY : 0
        if definition.isCompound { flags |= MBX_CTRL_FLAG_HAS_PAYLOAD }
        let inactive: Bool
        switch definition.id {
        case MBX_CID_EXPOSURE_ABSOLUTE: inactive = values[MBX_CID_EXPOSURE_AUTO] != Int64(MBX_EXPOSURE_MANUAL)
        case MBX_CID_WHITE_BALANCE_TEMPERATURE: inactive = values[MBX_CID_AUTO_WHITE_BALANCE] != 0
        case MBX_CID_FOCUS_ABSOLUTE: inactive = values[MBX_CID_FOCUS_AUTO] != 0
        default: inactive = false
        }
        return inactive ? flags | MBX_CTRL_FLAG_INACTIVE : flags
    }

    private func queryLegacy(_ query: UnsafeMutablePointer<v4l2_queryctrl>) -> Int32 {
        guard let definition = lookUp(query.pointee.id, compoundAllowed: false) else { return EINVAL }
        query.pointee = v4l2_queryctrl()
        query.pointee.id = definition.id
        query.pointee.type = definition.type
        setCString(definition.label, into: &query.pointee.name)
        query.pointee.minimum = Int32(definition.minimum)
        query.pointee.maximum = Int32(definition.maximum)
        query.pointee.step = Int32(definition.step)
        query.pointee.default_value = Int32(definition.defaultValue)
        query.pointee.flags = flags(definition)
        return 0
    }

    private func queryExtended(_ query: UnsafeMutablePointer<v4l2_query_ext_ctrl>) -> Int32 {
        guard let definition = lookUp(query.pointee.id, compoundAllowed: true) else { return EINVAL }
        query.pointee = v4l2_query_ext_ctrl()
        query.pointee.id = definition.id
        query.pointee.type = definition.type
        setCString(definition.label, into: &query.pointee.name)
        query.pointee.minimum = definition.minimum
        query.pointee.maximum = definition.maximum
        query.pointee.step = UInt64(definition.step)
        query.pointee.default_value = definition.defaultValue
        query.pointee.flags = flags(definition)
        query.pointee.elems = 1
        query.pointee.elem_size = definition.isCompound ? UInt32(MemoryLayout<v4l2_rect>.size) : 4
        return 0
    }

    private func queryMenu(_ query: UnsafeMutablePointer<v4l2_querymenu>) -> Int32 {
        guard let definition = find(query.pointee.id), definition.type == V4L2_CTRL_TYPE_MENU.rawValue,
            let name = definition.menu[Int64(query.pointee.index)]
        else { return EINVAL }
        setCString(name, into: &query.pointee.name)
        return 0
    }

    /// Sets an integer-like control: EACCES when read-only, EINVAL for a menu
    /// entry the control lacks, integers clamped to range and snapped to the step.
    private func set(_ definition: Definition, _ wanted: Int64) -> Int32 {
        if definition.readOnly { return EACCES }
        switch definition.type {
        case V4L2_CTRL_TYPE_MENU.rawValue:
            guard definition.menu[wanted] != nil else { return EINVAL }
            values[definition.id] = wanted
        case V4L2_CTRL_TYPE_BOOLEAN.rawValue:
            values[definition.id] = wanted != 0 ? 1 : 0
        case V4L2_CTRL_TYPE_BITMASK.rawValue:
            guard wanted & ~definition.maximum == 0 else { return ERANGE }
            values[definition.id] = wanted
        default:
            let clamped = min(max(wanted, definition.minimum), definition.maximum)
            let step = max(1, definition.step)
            values[definition.id] = definition.minimum + (clamped - definition.minimum + step / 2) / step * step
        }
        return 0
    }

    private func extended(_ request: UnsafeMutablePointer<v4l2_ext_controls>, set setting: Bool) -> Int32 {
        guard request.pointee.which == 0 || request.pointee.which == MBX_CTRL_CLASS_USER
            || request.pointee.which == MBX_CTRL_CLASS_CAMERA
        else { return EINVAL }
        let count = Int(request.pointee.count)
        guard count > 0, count <= 64, let controls = request.pointee.controls else { return count == 0 ? 0 : EINVAL }
        for index in 0..<count {
            let control = controls.advanced(by: index)
            guard let definition = find(control.pointee.id) else {
                request.pointee.error_idx = UInt32(index)
                return EINVAL
            }
            if definition.isCompound {
                guard control.pointee.size >= UInt32(MemoryLayout<v4l2_rect>.size), let pointer = control.pointee.ptr else {
                    control.pointee.size = UInt32(MemoryLayout<v4l2_rect>.size)
                    return ENOSPC
                }
                let rect = pointer.assumingMemoryBound(to: v4l2_rect.self)
                if setting { regionOfInterest = clampedToFrame(rect.pointee) }
                rect.pointee = regionOfInterest
                continue
            }
            if setting {
                let code = set(definition, control.pointee.value64)
                if code != 0 {
                    request.pointee.error_idx = UInt32(index)
                    return code
                }
            }
            control.pointee.value64 = values[definition.id] ?? 0
        }
        return 0
    }

    /// The rectangle moved and cut to lie inside the frame, as uvcvideo does with UVC's limits.
    private func clampedToFrame(_ rect: v4l2_rect) -> v4l2_rect {
        let (width, height) = (frameWidth(), frameHeight())
        let w = min(max(1, Int32(clamping: rect.width)), width)
        let h = min(max(1, Int32(clamping: rect.height)), height)
        return v4l2_rect(
            left: min(max(0, rect.left), width - w), top: min(max(0, rect.top), height - h), width: UInt32(w), height: UInt32(h))
    }
}
