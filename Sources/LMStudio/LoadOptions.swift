/// The options of a model load besides the model (`load.md`); unset ones keep the server's defaults.
public struct LoadOptions: Sendable, Equatable {
    /// Context length in tokens.
    public var contextLength: Int?
    /// Tokens evaluated per batch (llama.cpp engine only).
    public var evalBatchSize: Int?
    /// Whether flash attention is on (llama.cpp engine only).
    public var flashAttention: Bool?
    /// Active experts, for mixture-of-experts models (llama.cpp engine only).
    public var numExperts: Int?
    /// Whether the KV cache lives in GPU memory (llama.cpp engine only).
    public var offloadKVCacheToGPU: Bool?

    /// Creates load options.
    public init(
        contextLength: Int? = nil, evalBatchSize: Int? = nil, flashAttention: Bool? = nil, numExperts: Int? = nil,
        offloadKVCacheToGPU: Bool? = nil
    ) {
        self.contextLength = contextLength
        self.evalBatchSize = evalBatchSize
        self.flashAttention = flashAttention
        self.numExperts = numExperts
        self.offloadKVCacheToGPU = offloadKVCacheToGPU
    }
}

extension LoadRequest {
    /// A request to load `model` with `options`, asking the server for the configuration it applied.
    public init(model: String, options: LoadOptions, echoLoadConfig: Bool = true) {
        self.init(
            model: model, contextLength: options.contextLength, evalBatchSize: options.evalBatchSize,
            flashAttention: options.flashAttention, numExperts: options.numExperts,
            offloadKVCacheToGPU: options.offloadKVCacheToGPU, echoLoadConfig: echoLoadConfig)
    }
}
