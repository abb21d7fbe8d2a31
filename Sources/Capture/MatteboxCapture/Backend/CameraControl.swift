import Foundation

/// One control a camera offers (exposure, gain, white balance, focus, the
/// picture's brightness and colour, the region of interest), as the device
/// lists it: its kind, range, step, default and current value. `mattebox
/// controls` and the camera app show and set cameras through these, with the
/// ranges the device gives rather than ranges Mattebox assumes.
package struct CameraControl: Sendable, Codable, Equatable {
    package enum Kind: String, Sendable, Codable {
        case integer, boolean, menu, integerMenu, bitmask, button, rectangle, other
    }

    /// A menu entry: the value to set and what it is called.
    package struct MenuItem: Sendable, Codable, Equatable {
        package var value: Int64
        package var name: String
    }

    /// The backend's own key for the control (V4L2: its control ID, V4L2_CID_…); only the
    /// backend that listed the control reads it. People and the app name controls by `name`.
    package var id: UInt32
    /// The name people type, as v4l2-ctl spells it: "exposure_time_absolute".
    package var name: String
    /// The device's own label: "Exposure Time, Absolute".
    package var label: String
    package var kind: Kind
    package var minimum: Int64
    package var maximum: Int64
    package var step: Int64
    package var defaultValue: Int64
    /// The current value, or nil for a control that cannot be read (a button, write-only).
    package var value: ControlValue?
    package var menu: [MenuItem]
    package var readOnly: Bool
    /// Set, but without effect now (exposure time while exposure is automatic).
    package var inactive: Bool

    package init(
        id: UInt32, label: String, kind: Kind, minimum: Int64, maximum: Int64, step: Int64, defaultValue: Int64,
        value: ControlValue?, menu: [MenuItem] = [], readOnly: Bool = false, inactive: Bool = false
    ) {
        self.id = id
        self.name = Self.name(forLabel: label)
        self.label = label
        self.kind = kind
        self.minimum = minimum
        self.maximum = maximum
        self.step = step
        self.defaultValue = defaultValue
        self.value = value
        self.menu = menu
        self.readOnly = readOnly
        self.inactive = inactive
    }

    /// v4l2-ctl's naming: lower case, runs of anything not a letter or digit become one "_".
    package static func name(forLabel label: String) -> String {
        var name = ""
        for character in label.lowercased() {
            if character.isASCII && (character.isLetter || character.isNumber) {
                name.append(character)
            } else if !name.isEmpty && !name.hasSuffix("_") {
                name.append("_")
            }
        }
        return name.hasSuffix("_") ? String(name.dropLast()) : name
    }

    /// Reads what a person typed for this control: a number, a menu entry's
    /// name, true/false/on/off, or for a rectangle "left,top,width,height".
    package func parse(_ text: String) throws -> ControlValue {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch kind {
        case .rectangle:
            let parts = trimmed.split(separator: ",").compactMap { Int32($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 4, parts[2] > 0, parts[3] > 0 else {
                throw ControlError("\(name): a rectangle is left,top,width,height (width and height above 0), not \(text)")
            }
            return .rectangle(ControlRectangle(left: parts[0], top: parts[1], width: parts[2], height: parts[3]))
        case .boolean:
            switch trimmed.lowercased() {
            case "1", "true", "on", "yes": return .integer(1)
            case "0", "false", "off", "no": return .integer(0)
            default: throw ControlError("\(name) is on or off (1/0, true/false), not \(text)")
            }
        case .menu, .integerMenu:
            if let number = Int64(trimmed) { return .integer(number) }
            let wanted = Self.name(forLabel: trimmed)
            if let item = menu.first(where: { Self.name(forLabel: $0.name) == wanted }) { return .integer(item.value) }
            throw ControlError(
                "\(name) has no entry \(text); its entries: \(menu.map { "\($0.value) (\($0.name))" }.joined(separator: ", "))")
        default:
            guard let number = Int64(trimmed) else { throw ControlError("\(name) takes a whole number, not \(text)") }
            return .integer(number)
        }
    }

    /// Why `value` cannot be set, or nil when it can: read-only, out of range, not a menu entry.
    package func problem(with value: ControlValue) -> String? {
        if readOnly { return "\(name) is read-only" }
        switch (kind, value) {
        case (.rectangle, .rectangle): return nil
        case (.rectangle, _): return "\(name) takes a rectangle"
        case (_, .rectangle): return "\(name) takes a number, not a rectangle"
        case (.menu, .integer(let number)), (.integerMenu, .integer(let number)):
            return menu.contains { $0.value == number } ? nil : "\(name) has no entry \(number)"
        case (_, .integer(let number)):
            guard kind != .bitmask else { return nil }
            return (minimum...maximum).contains(number) ? nil : "\(name) must be within \(minimum)...\(maximum), not \(number)"
        }
    }
}

/// A control's value: a number (integers, booleans, menus) or a rectangle (the region of interest).
package enum ControlValue: Sendable, Equatable, Codable {
    case integer(Int64)
    case rectangle(ControlRectangle)

    package var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) {
            self = .integer(number)
        } else if let flag = try? container.decode(Bool.self) {
            self = .integer(flag ? 1 : 0)
        } else {
            self = .rectangle(try container.decode(ControlRectangle.self))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .integer(let number): try container.encode(number)
        case .rectangle(let rectangle): try container.encode(rectangle)
        }
    }

    package var description: String {
        switch self {
        case .integer(let number): return "\(number)"
        case .rectangle(let r): return "\(r.left),\(r.top),\(r.width),\(r.height)"
        }
    }
}

/// A rectangle in the stream's pixels (struct v4l2_rect).
package struct ControlRectangle: Sendable, Equatable, Codable {
    package var left: Int32
    package var top: Int32
    package var width: Int32
    package var height: Int32

    package init(left: Int32, top: Int32, width: Int32, height: Int32) {
        self.left = left
        self.top = top
        self.width = width
        self.height = height
    }
}

/// A control that could not be read or set, naming the control and the camera.
package struct ControlError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
