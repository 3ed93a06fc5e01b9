/// An error as the server words it, in an error body or an `error` stream event.
public struct APIErrorPayload: Codable, Sendable, Equatable {
    /// E.g. `invalid_request`, `model_not_found`, `internal_error`.
    public var type: String?
    /// The human-readable explanation.
    public var message: String
    /// E.g. `invalid_api_key`, `invalid_value`.
    public var code: String?
    /// The request field at fault, e.g. `reasoning`.
    public var param: String?

    /// Creates an error payload.
    public init(type: String? = nil, message: String, code: String? = nil, param: String? = nil) {
        self.type = type
        self.message = message
        self.code = code
        self.param = param
    }

    enum CodingKeys: String, CodingKey { case type, message, code, param }

    /// Decodes the object form, or a bare string as the message; a missing message reads as the type.
    public init(from decoder: any Decoder) throws {
        if let message = try? decoder.singleValueContainer().decode(String.self) {
            self.init(message: message)
            return
        }
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let type = try? c.decodeIfPresent(String.self, forKey: .type)
        let code = try? c.decodeIfPresent(String.self, forKey: .code)
        let message = try? c.decodeIfPresent(String.self, forKey: .message)
        self.init(
            type: type, message: message ?? type ?? code ?? "unknown error", code: code,
            param: try? c.decodeIfPresent(String.self, forKey: .param))
    }
}
