/// A downloaded model as `GET /api/v1/models` lists it, with its loaded instances.
public struct Model: Codable, Sendable, Equatable {
    /// Whether the model chats or embeds.
    public var type: ModelType
    /// Who published the model, e.g. `qwen`.
    public var publisher: String
    /// The identifier used as `model` in load and chat requests.
    public var key: String
    /// The name to show.
    public var displayName: String
    /// E.g. `qwen3`; absent for embedding models.
    public var architecture: String?
    /// How the weights are quantized.
    public var quantization: Quantization?
    /// On-disk size.
    public var sizeBytes: Int64
    /// Parameter count as the server words it, e.g. `7B` or `26B-A4B`.
    public var paramsString: String?
    /// Running instances; empty when the model is not loaded.
    public var loadedInstances: [LoadedInstance]
    /// The model's maximum context; a running instance's may be smaller.
    public var maxContextLength: Int?
    /// `gguf` or `mlx`.
    public var format: String?
    /// Absent for embedding models.
    public var capabilities: Capabilities?
    public var description: String?
    /// Only for multi-variant models.
    public var variants: [String]?
    /// The variant in use, among `variants`.
    public var selectedVariant: String?

    /// Creates a model description.
    public init(
        type: ModelType, publisher: String, key: String, displayName: String,
        architecture: String? = nil, quantization: Quantization? = nil, sizeBytes: Int64,
        paramsString: String? = nil, loadedInstances: [LoadedInstance] = [], maxContextLength: Int? = nil,
        format: String? = nil, capabilities: Capabilities? = nil, description: String? = nil,
        variants: [String]? = nil, selectedVariant: String? = nil
    ) {
        self.type = type
        self.publisher = publisher
        self.key = key
        self.displayName = displayName
        self.architecture = architecture
        self.quantization = quantization
        self.sizeBytes = sizeBytes
        self.paramsString = paramsString
        self.loadedInstances = loadedInstances
        self.maxContextLength = maxContextLength
        self.format = format
        self.capabilities = capabilities
        self.description = description
        self.variants = variants
        self.selectedVariant = selectedVariant
    }

    /// Whether at least one instance is loaded.
    public var isLoaded: Bool { !loadedInstances.isEmpty }

    /// Whether the model accepts a `reasoning` setting.
    public var supportsReasoning: Bool { capabilities?.reasoning != nil }

    enum CodingKeys: String, CodingKey {
        case type, publisher, key, architecture, quantization, format, capabilities, description, variants
        case displayName = "display_name"
        case sizeBytes = "size_bytes"
        case paramsString = "params_string"
        case loadedInstances = "loaded_instances"
        case maxContextLength = "max_context_length"
        case selectedVariant = "selected_variant"
    }

    /// Decodes tolerantly: only `key` is required; a missing `type` reads as `llm`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        key = try c.decode(String.self, forKey: .key)
        type = try c.decodeIfPresent(ModelType.self, forKey: .type) ?? .llm
        publisher = try c.decodeIfPresent(String.self, forKey: .publisher) ?? ""
        displayName = try c.decodeIfPresent(String.self, forKey: .displayName) ?? key
        architecture = try c.decodeIfPresent(String.self, forKey: .architecture)
        quantization = try c.decodeIfPresent(Quantization.self, forKey: .quantization)
        sizeBytes = try c.decodeIfPresent(Int64.self, forKey: .sizeBytes) ?? 0
        paramsString = try c.decodeIfPresent(String.self, forKey: .paramsString)
        loadedInstances = try c.decodeIfPresent([LoadedInstance].self, forKey: .loadedInstances) ?? []
        maxContextLength = try c.decodeIfPresent(Int.self, forKey: .maxContextLength)
        format = try c.decodeIfPresent(String.self, forKey: .format)
        capabilities = try c.decodeIfPresent(Capabilities.self, forKey: .capabilities)
        description = try c.decodeIfPresent(String.self, forKey: .description)
        variants = try c.decodeIfPresent([String].self, forKey: .variants)
        selectedVariant = try c.decodeIfPresent(String.self, forKey: .selectedVariant)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(type, forKey: .type)
        try c.encode(publisher, forKey: .publisher)
        try c.encode(key, forKey: .key)
        try c.encode(displayName, forKey: .displayName)
        try c.encodeIfPresent(architecture, forKey: .architecture)
        try c.encodeIfPresent(quantization, forKey: .quantization)
        try c.encode(sizeBytes, forKey: .sizeBytes)
        try c.encodeIfPresent(paramsString, forKey: .paramsString)
        try c.encode(loadedInstances, forKey: .loadedInstances)
        try c.encodeIfPresent(maxContextLength, forKey: .maxContextLength)
        try c.encodeIfPresent(format, forKey: .format)
        try c.encodeIfPresent(capabilities, forKey: .capabilities)
        try c.encodeIfPresent(description, forKey: .description)
        try c.encodeIfPresent(variants, forKey: .variants)
        try c.encodeIfPresent(selectedVariant, forKey: .selectedVariant)
    }
}

/// What a model does; unknown kinds keep their wire name.
public enum ModelType: Codable, Sendable, Equatable, Hashable {
    /// A chat model.
    case llm
    /// An embedding model; it cannot chat.
    case embedding
    /// A kind this client does not know, by its wire name.
    case other(String)

    /// The wire name, e.g. `llm`.
    public var rawValue: String {
        switch self {
        case .llm: "llm"
        case .embedding: "embedding"
        case .other(let name): name
        }
    }

    /// Reads a wire name.
    public init(rawValue: String) {
        switch rawValue {
        case "llm": self = .llm
        case "embedding": self = .embedding
        default: self = .other(rawValue)
        }
    }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// How a model's weights are quantized; either field may be unknown.
public struct Quantization: Codable, Sendable, Equatable {
    /// E.g. `Q4_K_M`.
    public var name: String?
    /// Average bits per weight.
    public var bitsPerWeight: Double?

    /// Creates a quantization description.
    public init(name: String? = nil, bitsPerWeight: Double? = nil) {
        self.name = name
        self.bitsPerWeight = bitsPerWeight
    }

    enum CodingKeys: String, CodingKey {
        case name
        case bitsPerWeight = "bits_per_weight"
    }
}

/// What an LLM can do.
public struct Capabilities: Codable, Sendable, Equatable {
    /// Accepts images.
    public var vision: Bool
    /// Trained to call tools.
    public var trainedForToolUse: Bool
    /// Present when the model accepts a `reasoning` setting.
    public var reasoning: ReasoningCapability?

    /// Creates a capability set.
    public init(vision: Bool = false, trainedForToolUse: Bool = false, reasoning: ReasoningCapability? = nil) {
        self.vision = vision
        self.trainedForToolUse = trainedForToolUse
        self.reasoning = reasoning
    }

    enum CodingKeys: String, CodingKey {
        case vision, reasoning
        case trainedForToolUse = "trained_for_tool_use"
    }

    /// Decodes tolerantly: missing flags read as false.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        vision = try c.decodeIfPresent(Bool.self, forKey: .vision) ?? false
        trainedForToolUse = try c.decodeIfPresent(Bool.self, forKey: .trainedForToolUse) ?? false
        reasoning = try c.decodeIfPresent(ReasoningCapability.self, forKey: .reasoning)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(vision, forKey: .vision)
        try c.encode(trainedForToolUse, forKey: .trainedForToolUse)
        try c.encodeIfPresent(reasoning, forKey: .reasoning)
    }
}

/// The `reasoning` values a model accepts.
public struct ReasoningCapability: Codable, Sendable, Equatable {
    /// Values to offer, e.g. `off`, `low`, `medium`, `high`, `on`.
    public var allowedOptions: [String]
    /// The value the server uses when none is sent.
    public var `default`: String?

    /// Creates a reasoning capability.
    public init(allowedOptions: [String], default: String? = nil) {
        self.allowedOptions = allowedOptions
        self.default = `default`
    }

    enum CodingKeys: String, CodingKey {
        case `default`
        case allowedOptions = "allowed_options"
    }

    /// Decodes tolerantly: missing options read as none.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        allowedOptions = try c.decodeIfPresent([String].self, forKey: .allowedOptions) ?? []
        `default` = try c.decodeIfPresent(String.self, forKey: .default)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(allowedOptions, forKey: .allowedOptions)
        try c.encodeIfPresent(`default`, forKey: .default)
    }
}

/// A running instance of a model.
public struct LoadedInstance: Codable, Sendable, Equatable {
    /// The instance id: the model key, or `key:2`, `key:3`… for extra instances.
    public var id: String
    /// The configuration it was loaded with.
    public var config: InstanceConfig

    /// Creates an instance description.
    public init(id: String, config: InstanceConfig = InstanceConfig()) {
        self.id = id
        self.config = config
    }

    enum CodingKeys: String, CodingKey { case id, config }

    /// Decodes tolerantly: a missing config reads as empty.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        config = try c.decodeIfPresent(InstanceConfig.self, forKey: .config) ?? InstanceConfig()
    }
}

/// The load configuration of a running instance.
public struct InstanceConfig: Codable, Sendable, Equatable {
    /// The context this instance was loaded with; often less than the model's maximum.
    public var contextLength: Int?
    /// Tokens evaluated per batch.
    public var evalBatchSize: Int?
    /// Requests the instance serves at once.
    public var parallel: Int?
    /// Whether flash attention is on.
    public var flashAttention: Bool?
    /// Active experts, for mixture-of-experts models.
    public var numExperts: Int?
    /// Whether the KV cache lives in GPU memory.
    public var offloadKVCacheToGPU: Bool?
    /// Keys the documentation does not list, as the server sent them: 0.4 servers have been seen to report
    /// `physical_batch_size`, `context_checkpoints`, `reasoning_budget_message` and `speculative_draft_*`.
    public var otherKeys: [String: JSONValue] = [:]

    /// Creates a configuration.
    public init(
        contextLength: Int? = nil, evalBatchSize: Int? = nil, parallel: Int? = nil,
        flashAttention: Bool? = nil, numExperts: Int? = nil, offloadKVCacheToGPU: Bool? = nil
    ) {
        self.contextLength = contextLength
        self.evalBatchSize = evalBatchSize
        self.parallel = parallel
        self.flashAttention = flashAttention
        self.numExperts = numExperts
        self.offloadKVCacheToGPU = offloadKVCacheToGPU
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case parallel
        case contextLength = "context_length"
        case evalBatchSize = "eval_batch_size"
        case flashAttention = "flash_attention"
        case numExperts = "num_experts"
        case offloadKVCacheToGPU = "offload_kv_cache_to_gpu"
    }

    /// Any key, for the ones the documentation does not list.
    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Decodes tolerantly: a documented key of an unexpected type reads as absent, and other keys are kept as given.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        contextLength = try? c.decodeIfPresent(Int.self, forKey: .contextLength)
        evalBatchSize = try? c.decodeIfPresent(Int.self, forKey: .evalBatchSize)
        parallel = try? c.decodeIfPresent(Int.self, forKey: .parallel)
        flashAttention = try? c.decodeIfPresent(Bool.self, forKey: .flashAttention)
        numExperts = try? c.decodeIfPresent(Int.self, forKey: .numExperts)
        offloadKVCacheToGPU = try? c.decodeIfPresent(Bool.self, forKey: .offloadKVCacheToGPU)
        let documented = Set(CodingKeys.allCases.map(\.rawValue))
        let all = try decoder.container(keyedBy: AnyKey.self)
        for key in all.allKeys where !documented.contains(key.stringValue) {
            if let value = try? all.decode(JSONValue.self, forKey: key) { otherKeys[key.stringValue] = value }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(contextLength, forKey: .contextLength)
        try c.encodeIfPresent(evalBatchSize, forKey: .evalBatchSize)
        try c.encodeIfPresent(parallel, forKey: .parallel)
        try c.encodeIfPresent(flashAttention, forKey: .flashAttention)
        try c.encodeIfPresent(numExperts, forKey: .numExperts)
        try c.encodeIfPresent(offloadKVCacheToGPU, forKey: .offloadKVCacheToGPU)
        var all = encoder.container(keyedBy: AnyKey.self)
        for (key, value) in otherKeys.sorted(by: { $0.key < $1.key }) {
            try all.encode(value, forKey: AnyKey(stringValue: key))
        }
    }
}
