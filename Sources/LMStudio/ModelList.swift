/// The reply of `GET /api/v1/models`.
public struct ModelList: Codable, Sendable, Equatable {
    /// Every downloaded model, LLMs and embedding models alike.
    public var models: [Model]

    /// Creates a list.
    public init(models: [Model]) {
        self.models = models
    }
}
