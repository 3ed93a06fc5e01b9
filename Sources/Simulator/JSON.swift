import Foundation

/// JSON helpers over `JSONSerialization`, with sorted keys so output is deterministic.
enum JSON {
    /// Serialises a dictionary or array; `[String: Any]` literals built by the simulator always serialise.
    static func encode(_ value: Any) -> String {
        fragment(value) ?? "null"
    }

    /// Serialises any JSON value, including bare strings and numbers.
    static func fragment(_ value: Any) -> String? {
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
        else {
            return nil
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Parses any JSON value; nil when the text is not JSON.
    static func parse(_ text: String) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    /// Parses a JSON object; nil when the text is not a JSON object.
    static func object(_ text: String) -> [String: Any]? {
        parse(text) as? [String: Any]
    }

    /// The documented error body `{"error":{type, message, code?, param?}}`.
    static func error(type: String, message: String, code: String? = nil, param: String? = nil) -> String {
        var inner: [String: Any] = ["type": type, "message": message]
        if let code { inner["code"] = code }
        if let param { inner["param"] = param }
        return encode(["error": inner])
    }
}
