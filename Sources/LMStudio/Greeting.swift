/// The reply of `GET /lmstudio-greeting`, which tells LM Studio from other servers.
public struct Greeting: Codable, Sendable, Equatable {
    /// True on an LM Studio server.
    public var lmstudio: Bool

    /// Creates a greeting.
    public init(lmstudio: Bool) {
        self.lmstudio = lmstudio
    }

    enum CodingKeys: String, CodingKey { case lmstudio }

    /// Decodes tolerantly: a missing or non-boolean `lmstudio` reads as false.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        lmstudio = (try? c.decodeIfPresent(Bool.self, forKey: .lmstudio)) ?? false
    }
}
