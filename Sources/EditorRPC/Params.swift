import Foundation
import LMStudio

/// A request's `params` object, with typed accessors that answer `invalid_params` when a value is wrong.
public struct Params: Sendable {
    public let members: [String: JSONValue]

    /// Reads `params`: an object, or absent (no parameters).
    init(_ value: JSONValue?) throws(RPCError) {
        switch value {
        case .none, .null?: members = [:]
        case .object(let object)?: members = object
        default: throw RPCError.invalidParams("params must be an object")
        }
    }

    /// A required string.
    public func string(_ name: String) throws(RPCError) -> String {
        guard let value = try optionalString(name) else {
            throw RPCError.invalidParams("missing string parameter \"\(name)\"")
        }
        return value
    }

    /// A string, or nil when absent or null.
    public func optionalString(_ name: String) throws(RPCError) -> String? {
        switch members[name] {
        case .none, .null?: return nil
        case .string(let value)?: return value
        default: throw RPCError.invalidParams("parameter \"\(name)\" must be a string")
        }
    }

    /// An array of strings, or nil when absent or null.
    public func optionalStrings(_ name: String) throws(RPCError) -> [String]? {
        switch members[name] {
        case .none, .null?: return nil
        case .array(let values)?:
            var strings: [String] = []
            for value in values {
                guard case .string(let string) = value else {
                    throw RPCError.invalidParams("parameter \"\(name)\" must be an array of strings")
                }
                strings.append(string)
            }
            return strings
        default: throw RPCError.invalidParams("parameter \"\(name)\" must be an array of strings")
        }
    }

    /// An integer, or nil when absent or null.
    public func optionalInteger(_ name: String) throws(RPCError) -> Int? {
        switch members[name] {
        case .none, .null?: return nil
        case .number(let value)? where value == value.rounded() && abs(value) < 1e15: return Int(value)
        default: throw RPCError.invalidParams("parameter \"\(name)\" must be an integer")
        }
    }

    /// A required integer.
    public func integer(_ name: String) throws(RPCError) -> Int {
        guard let value = try optionalInteger(name) else {
            throw RPCError.invalidParams("missing integer parameter \"\(name)\"")
        }
        return value
    }

    /// A boolean, `fallback` when absent.
    public func bool(_ name: String, default fallback: Bool = false) throws(RPCError) -> Bool {
        switch members[name] {
        case .none, .null?: return fallback
        case .bool(let value)?: return value
        default: throw RPCError.invalidParams("parameter \"\(name)\" must be true or false")
        }
    }

    /// A boolean, or nil when absent or null.
    public func optionalBool(_ name: String) throws(RPCError) -> Bool? {
        switch members[name] {
        case .none, .null?: return nil
        case .bool(let value)?: return value
        default: throw RPCError.invalidParams("parameter \"\(name)\" must be true or false")
        }
    }

    /// Whether the parameter is present (even as null).
    public func has(_ name: String) -> Bool { members[name] != nil }
}

extension JSONValue {
    /// The value of an `Encodable` record, dates as ISO 8601 text.
    static func encoding(_ value: some Encodable) throws -> JSONValue {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return try JSONDecoder().decode(JSONValue.self, from: encoder.encode(value))
    }

    /// Parses JSON text.
    static func parsing(_ bytes: [UInt8]) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    /// The member `name` of an object, else nil.
    subscript(_ name: String) -> JSONValue? {
        if case .object(let members) = self { return members[name] } else { return nil }
    }

    /// An integer JSON number.
    static func integer(_ value: Int) -> JSONValue { .number(Double(value)) }
}
