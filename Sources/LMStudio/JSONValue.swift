import SystemSupport

/// Any JSON value, for fields whose shape the API leaves open (tool arguments, load configs).
public enum JSONValue: Codable, Sendable, Equatable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// Any JSON number.
    case number(Double)
    /// A JSON string.
    case string(String)
    /// A JSON array.
    case array([JSONValue])
    /// A JSON object.
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Compact JSON text with object keys sorted, e.g. `{"a":1,"b":[true,null]}`.
    ///
    /// Integral numbers print without a fraction; non-finite numbers print as `null`. Every JSON text llmster
    /// prints is made here, so the escaping of controls (see `mustEscape`) holds for all of them.
    public var jsonString: String {
        var text = ""
        render(into: &text)
        return text
    }

    private func render(into text: inout String) {
        switch self {
        case .null:
            text += "null"
        case .bool(let value):
            text += value ? "true" : "false"
        case .number(let value):
            if !value.isFinite {
                text += "null"
            } else if value == value.rounded(), abs(value) < 1e15 {
                text += String(Int64(value))
            } else {
                text += "\(value)"
            }
        case .string(let value):
            Self.renderString(value, into: &text)
        case .array(let values):
            text += "["
            for (index, value) in values.enumerated() {
                if index > 0 { text += "," }
                value.render(into: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { text += "," }
                Self.renderString(key, into: &text)
                text += ":"
                members[key]!.render(into: &text)
            }
            text += "}"
        }
    }

    private static func renderString(_ value: String, into text: inout String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case let control where Self.mustEscape(control):
                text += UnsafeScalars.jsonEscape(control)
            default:
                text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    /// Whether `scalar` is written as `\uXXXX`: every one of `UnsafeScalars`.
    static func mustEscape(_ scalar: Unicode.Scalar) -> Bool { UnsafeScalars.contains(scalar) }
}
