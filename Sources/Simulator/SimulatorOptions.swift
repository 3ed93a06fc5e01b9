/// How a `Simulator` behaves for its whole run.
public struct SimulatorOptions: Sendable {
    /// When set, every request except `/__sim/*` needs `Authorization: Bearer <token>`.
    public var requireToken: String?
    /// Acts as an LM Studio older than 0.4: every `/api/v1/*` path answers the "Unexpected endpoint" body.
    public var legacy: Bool
    /// Seconds between streamed reasoning and message deltas.
    public var tokenDelay: Double
    /// Directives (same syntax as `[[sim:…]]`) applied to every chat before per-request ones.
    public var defaultFaults: String?
    /// Model keys loaded when the simulator starts (and after a reset), with their context length.
    public var loadedAtStart: [String: Int]
    /// LM Studio's "auto-evict": a JIT load first unloads the instances earlier JIT loads made.
    ///
    /// Instances from `/api/v1/models/load` and `loadedAtStart` are never evicted.
    public var autoEvict: Bool
    /// Adds a model whose key, name and description carry terminal control sequences (`HostileScenarios`).
    public var hostileModels = false

    /// Options with the defaults of a plain LM Studio 0.4 with `acme/tiny-1b` loaded.
    public init(
        requireToken: String? = nil,
        legacy: Bool = false,
        tokenDelay: Double = 0,
        defaultFaults: String? = nil,
        loadedAtStart: [String: Int] = ["acme/tiny-1b": 4096],
        autoEvict: Bool = true
    ) {
        self.requireToken = requireToken
        self.legacy = legacy
        self.tokenDelay = tokenDelay
        self.defaultFaults = defaultFaults
        self.loadedAtStart = loadedAtStart
        self.autoEvict = autoEvict
    }
}
