/// How a `Simulator` behaves for its whole run.
public struct SimulatorOptions: Sendable {
    /// When set, every request except `/__sim/*` needs `Authorization: Bearer <token>`.
    public var requireToken: String?
    /// With `requireToken`, a second token that may only list models: any other request gets HTTP 403, as a token
    /// without that permission would (LM Studio's per-token permissions, `authentication.mdx`).
    public var listOnlyToken: String?
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
    /// Acts as a 0.4 server from before April 2026: the models list has no `capabilities.reasoning`,
    /// `loaded_instances[].config.parallel`, `variants` or `selected_variant` (the server still checks `reasoning`).
    public var earlyModelList: Bool
    /// The `type` of a text input item the server accepts: `text` (as servers have been seen to) or `message`
    /// (as the reference in `chat.md` says).
    public var inputTextType: String
    /// Adds a model whose key, name and description carry terminal control sequences (`HostileScenarios`).
    public var hostileModels = false
    /// Serves what 0.4.x servers were seen to send beyond the documentation (`Catalogue.observedFixtures`): a model key
    /// without `publisher/` (lmstudio-bug-tracker#1659), a reasoning model listing `xhigh`, and extra
    /// `loaded_instances[].config` keys (`physical_batch_size`, `context_checkpoints`, `reasoning_budget_message`,
    /// `speculative_draft_max_tokens`).
    public var observedShapes = false
    /// A model load forgets every stored response, so a conversation cannot continue by `previous_response_id` after a
    /// reload. Whether LM Studio keeps them across a reload is not documented; off by default (they are kept).
    public var loadForgetsResponses = false
    /// `llmster --demo`: a message asking for a table, code, a list, a long answer, reasoning ("think") or a tool
    /// call ("search") gets it (`Faults.followDemoRequest`), so the first minute shows what a client draws.
    public var answersWhatIsAsked = false
    /// Called with each streamed event's name as soon as it is written to the socket (benchmarks time a reply's
    /// first delta from it); called on the connection's thread.
    public var eventSent: (@Sendable (String) -> Void)?

    /// Options with the defaults of a plain LM Studio 0.4 with `acme/tiny-1b` loaded.
    public init(
        requireToken: String? = nil,
        listOnlyToken: String? = nil,
        legacy: Bool = false,
        tokenDelay: Double = 0,
        defaultFaults: String? = nil,
        loadedAtStart: [String: Int] = ["acme/tiny-1b": 4096],
        autoEvict: Bool = true,
        earlyModelList: Bool = false,
        inputTextType: String = "text"
    ) {
        self.requireToken = requireToken
        self.listOnlyToken = listOnlyToken
        self.legacy = legacy
        self.tokenDelay = tokenDelay
        self.defaultFaults = defaultFaults
        self.loadedAtStart = loadedAtStart
        self.autoEvict = autoEvict
        self.earlyModelList = earlyModelList
        self.inputTextType = inputTextType
    }
}
