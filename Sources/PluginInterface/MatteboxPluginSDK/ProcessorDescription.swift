@_exported import CMatteboxPluginABI

/// What a Swift plugin says about itself; the SDK turns it into the static C
/// descriptor the host reads, so authors never build C structs by hand.
public struct ProcessorDescription: Sendable {
    public var id: String
    public var name: String
    public var summary: String
    public var vendor: String
    public var license: String
    public var version: (major: UInt32, minor: UInt32, patch: UInt32)
    public var threadSafety: ThreadSafetyLevel
    public var inputs: [Port]
    public var outputs: [Port]
    public var parameters: [Parameter]

    public init(
        id: String, name: String, summary: String, vendor: String, license: String = "MIT",
        version: (major: UInt32, minor: UInt32, patch: UInt32) = (1, 0, 0),
        threadSafety: ThreadSafetyLevel = .instance, inputs: [Port] = [.init(role: MBX_ROLE_PRIMARY)],
        outputs: [Port] = [], parameters: [Parameter] = []
    ) {
        self.id = id
        self.name = name
        self.summary = summary
        self.vendor = vendor
        self.license = license
        self.version = version
        self.threadSafety = threadSafety
        self.inputs = inputs
        self.outputs = outputs
        self.parameters = parameters
    }
}

/// How the host may call one instance from several threads.
public enum ThreadSafetyLevel: UInt32, Sendable {
    case serialized = 0, instance = 1, concurrent = 2
}

/// An image role a processor reads or writes.
public struct Port: Sendable {
    public var role: String
    public var optional: Bool
    public var description: String

    public init(role: String, optional: Bool = false, description: String = "") {
        self.role = role
        self.optional = optional
        self.description = description
    }
}

/// A typed parameter with its default and hard limits.
public struct Parameter: Sendable {
    public enum Kind: Sendable {
        case bool(default: Bool)
        case int(default: Int64, range: ClosedRange<Int64>)
        case double(default: Double, range: ClosedRange<Double>)
        case string(default: String)
        case choice(default: String, values: [String])
    }

    public var key: String
    public var description: String
    public var kind: Kind
    public var unit: String?

    public init(_ key: String, _ kind: Kind, description: String, unit: String? = nil) {
        self.key = key
        self.kind = kind
        self.description = description
        self.unit = unit
    }
}
