import Foundation
import MatteboxCore
import MatteboxRuntime

/// A typed parameter value as pipeline files and plugins exchange it.
/// In JSON it is the plain value (`"normalize"`, `0.5`, `true`).
public enum ParameterValue: Sendable, Equatable, Codable, CustomStringConvertible {
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)

    public var description: String {
        switch self {
        case .bool(let value): return String(value)
        case .int(let value): return String(value)
        case .double(let value): return String(value)
        case .string(let value): return value
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        }
    }

    public init(from decoder: Decoder) throws {
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

    public var jsonValue: Any {
        switch self {
        case .bool(let value): return value
        case .int(let value): return value
        case .double(let value): return value
        case .string(let value): return value
        }
    }
}

/// The types a plugin parameter can have. Raw values match `mbx_param_type`.
public enum ParameterType: Int, Sendable, NamedCoding {
    case bool = 1, int = 2, double = 3, string = 4, enumeration = 5

    public var description: String {
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
public struct ParameterSpec: Sendable, Codable, Equatable {
    public var key: String
    public var description: String
    public var type: ParameterType
    public var defaultValue: ParameterValue
    public var minimum: Double?
    public var maximum: Double?
    public var enumValues: [String]
    public var unit: String?

    private enum CodingKeys: String, CodingKey {
        case key, description, type, defaultValue, minimum, maximum, enumValues, unit
    }

    public init(
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

    public init(from decoder: Decoder) throws {
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
public struct PortDescription: Sendable, Codable, Equatable {
    public var role: ImageRole
    public var optional: Bool
    public var description: String
}

/// How a plugin may be called from several threads (`mbx_thread_safety`).
public enum ThreadSafety: Int, Sendable, NamedCoding {
    case serialized = 0, instance = 1, concurrent = 2

    public var description: String {
        switch self {
        case .serialized: return "serialized"
        case .instance: return "instance"
        case .concurrent: return "concurrent"
        }
    }
}

/// Everything a plugin says about itself, read once through the C ABI and then
/// passed around (and across the scanner's process boundary) as plain data.
public struct PluginDescription: Sendable, Codable, Equatable {
    public var id: String
    public var name: String
    public var summary: String
    public var vendor: String
    public var license: String
    public var version: String
    public var abiVersion: String
    public var threadSafety: ThreadSafety
    public var inputs: [PortDescription]
    public var outputs: [PortDescription]
    public var parameters: [ParameterSpec]
    /// Which of the module's processors this is (the index for mbx_plugin_get).
    public var index: UInt32

    public func parameter(_ key: String) -> ParameterSpec? { parameters.first { $0.key == key } }
}
