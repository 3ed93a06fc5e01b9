/// The reply of `POST /api/v1/models/load`, sent once the load has finished.
public struct LoadResponse: Codable, Sendable, Equatable {
    /// The model type, e.g. `llm`.
    public var type: String?
    /// The id of the new instance, to unload it later.
    public var instanceId: String
    /// How long the load took.
    public var loadTimeSeconds: Double?
    /// `loaded` on success.
    public var status: String?
    /// The configuration the server applied, including settings it chose itself, when `echo_load_config` was set;
    /// only the options that applied are present (`load.md`).
    public var loadConfig: InstanceConfig?

    /// Creates a load reply.
    public init(
        type: String? = nil, instanceId: String, loadTimeSeconds: Double? = nil, status: String? = nil,
        loadConfig: InstanceConfig? = nil
    ) {
        self.type = type
        self.instanceId = instanceId
        self.loadTimeSeconds = loadTimeSeconds
        self.status = status
        self.loadConfig = loadConfig
    }

    enum CodingKeys: String, CodingKey {
        case type, status
        case instanceId = "instance_id"
        case loadTimeSeconds = "load_time_seconds"
        case loadConfig = "load_config"
    }
}
