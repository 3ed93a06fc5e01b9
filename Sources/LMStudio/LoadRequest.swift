/// The body of `POST /api/v1/models/load`; unset options keep the server's defaults.
public struct LoadRequest: Codable, Sendable, Equatable {
    /// The model key to load.
    public var model: String
    /// Context length in tokens.
    public var contextLength: Int?
    /// Tokens evaluated per batch.
    public var evalBatchSize: Int?
    /// Whether flash attention is on.
    public var flashAttention: Bool?
    /// Active experts, for mixture-of-experts models.
    public var numExperts: Int?
    /// Whether the KV cache lives in GPU memory.
    public var offloadKVCacheToGPU: Bool?
    /// Asks the server to answer with the configuration it applied.
    public var echoLoadConfig: Bool?

    /// Creates a load request.
    public init(
        model: String, contextLength: Int? = nil, evalBatchSize: Int? = nil, flashAttention: Bool? = nil,
        numExperts: Int? = nil, offloadKVCacheToGPU: Bool? = nil, echoLoadConfig: Bool? = nil
    ) {
        self.model = model
        self.contextLength = contextLength
        self.evalBatchSize = evalBatchSize
        self.flashAttention = flashAttention
        self.numExperts = numExperts
        self.offloadKVCacheToGPU = offloadKVCacheToGPU
        self.echoLoadConfig = echoLoadConfig
    }

    enum CodingKeys: String, CodingKey {
        case model
        case contextLength = "context_length"
        case evalBatchSize = "eval_batch_size"
        case flashAttention = "flash_attention"
        case numExperts = "num_experts"
        case offloadKVCacheToGPU = "offload_kv_cache_to_gpu"
        case echoLoadConfig = "echo_load_config"
    }
}
