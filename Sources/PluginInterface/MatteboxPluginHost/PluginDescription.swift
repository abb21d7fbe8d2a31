import Foundation
import MatteboxCore
import MatteboxRuntime

/// A typed parameter value as pipeline files and plugins exchange it.
/// In JSON it is the plain value (`"normalize"`, `0.5`, `true`).
package enum ParameterValue: Sendable, Equatable, Codable, CustomStringConvertible {
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)

    package var description: String {
        switch self {
        case .bool(let value): return String(value)
        case .int(let value): return String(value)
        case .double(let value): return String(value)
        case .string(let value): return value
        }
    }

    package func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        }
    }

    package init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    /// The same value as the type a parameter declares (JSON does not tell 2 from 2.0).
    func typed(as type: ParameterType) -> ParameterValue {
        switch (self, type) {
        case (.int(let value), .double): return .double(Double(value))
        default: return self
        }
    }

    package var jsonValue: Any {
        switch self {
        case .bool(let value): return value
        case .int(let value): return value
        case .double(let value): return value
        case .string(let value): return value
        }
    }
}

/// The types a plugin parameter can have. Raw values match `mbx_param_type`.
package enum ParameterType: Int, Sendable, NamedCoding {
    case bool = 1, int = 2, double = 3, string = 4, enumeration = 5

    package var description: String {
        switch self {
        case .bool: return "bool"
        case .int: return "int"
        case .double: return "double"
        case .string: return "string"
        case .enumeration: return "enum"
        }
    }
}

/// One parameter a plugin declares: its type, default, hard limits and the
/// words `mattebox plugins inspect` shows.
package struct ParameterSpec: Sendable, Codable, Equatable {
    /// Its contract in words: "default 0.5; range 0...1", "default blur; one of: blur, colour".
    package var contract: String {
        var facts = ["\(defaultValue)".isEmpty ? "no default" : "default \(defaultValue)"]
        if type == .enumeration { facts.append("one of: \(enumValues.joined(separator: ", "))") }
        if let minimum, let maximum { facts.append("range \(Self.number(minimum))...\(Self.number(maximum))") }
        if let unit { facts.append("unit \(unit)") }
        return facts.joined(separator: "; ")
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    package var key: String
    package var description: String
    package var type: ParameterType
    package var defaultValue: ParameterValue
    package var minimum: Double?
    package var maximum: Double?
    package var enumValues: [String]
    package var unit: String?

    private enum CodingKeys: String, CodingKey {
        case key, description, type, defaultValue, minimum, maximum, enumValues, unit
    }

    package init(
        key: String, description: String, type: ParameterType, defaultValue: ParameterValue, minimum: Double?,
        maximum: Double?, enumValues: [String], unit: String?
    ) {
        self.key = key
        self.description = description
        self.type = type
        self.defaultValue = defaultValue.typed(as: type)
        self.minimum = minimum
        self.maximum = maximum
        self.enumValues = enumValues
        self.unit = unit
    }

    package init(from decoder: Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            key: try values.decode(String.self, forKey: .key), description: try values.decode(String.self, forKey: .description),
            type: try values.decode(ParameterType.self, forKey: .type),
            defaultValue: try values.decode(ParameterValue.self, forKey: .defaultValue),
            minimum: try values.decodeIfPresent(Double.self, forKey: .minimum),
            maximum: try values.decodeIfPresent(Double.self, forKey: .maximum),
            enumValues: try values.decode([String].self, forKey: .enumValues),
            unit: try values.decodeIfPresent(String.self, forKey: .unit))
    }
}

/// An image role a plugin reads or writes.
package struct PortDescription: Sendable, Codable, Equatable {
    package var role: ImageRole
    package var optional: Bool
    package var description: String
}

/// How a plugin may be called from several threads (`mbx_thread_safety`).
package enum ThreadSafety: Int, Sendable, NamedCoding {
    case serialized = 0, instance = 1, concurrent = 2

    package var description: String {
        switch self {
        case .serialized: return "serialized"
        case .instance: return "instance"
        case .concurrent: return "concurrent"
        }
    }
}

/// Everything a plugin says about itself, read once through the C ABI and then
/// passed around (and across the scanner's process boundary) as plain data.
package struct PluginDescription: Sendable, Codable, Equatable {
    package var id: String
    package var name: String
    package var summary: String
    package var vendor: String
    package var license: String
    package var version: String
    package var abiVersion: String
    package var threadSafety: ThreadSafety
    package var inputs: [PortDescription]
    package var outputs: [PortDescription]
    package var parameters: [ParameterSpec]
    /// Which of the module's processors this is (the index for mbx_plugin_get).
    package var index: UInt32

    package func parameter(_ key: String) -> ParameterSpec? { parameters.first { $0.key == key } }
}
