/// The reply of `GET /lmstudio-greeting`, which tells LM Studio from other servers.
///
/// Observed, not documented: LM Studio's docs do not mention this path or its fields.
public struct Greeting: Codable, Sendable, Equatable {
    /// True on an LM Studio server.
    public var lmstudio: Bool
    /// The server's version when it says, e.g. `0.4.1`.
    public var version: String?

    /// Creates a greeting.
    public init(lmstudio: Bool, version: String? = nil) {
        self.lmstudio = lmstudio
        self.version = version
    }

    enum CodingKeys: String, CodingKey { case lmstudio, version }

    /// Decodes tolerantly: a missing or non-boolean `lmstudio` reads as false, a version that is not a string as none.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        lmstudio = (try? c.decodeIfPresent(Bool.self, forKey: .lmstudio)) ?? false
        version = (try? c.decodeIfPresent(String.self, forKey: .version)) ?? nil
    }
}
