/// The body of `POST /api/v1/models/unload` (also its reply).
public struct UnloadRequest: Codable, Sendable, Equatable {
    /// A `loaded_instances[].id`, never a bare model key.
    public var instanceId: String

    /// Creates an unload request.
    public init(instanceId: String) {
        self.instanceId = instanceId
    }

    enum CodingKeys: String, CodingKey {
        case instanceId = "instance_id"
    }
}
