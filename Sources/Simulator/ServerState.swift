/// Everything a running simulator remembers; mutated only under the simulator's lock.
struct ServerState {
    /// A downloaded model, kept as its literal JSON fixture plus the fields the simulator acts on.
    struct Model {
        /// The literal JSON served in `/api/v1/models` (without `loaded_instances`).
        var fixture: String
        /// The catalogue key.
        var key: String
        /// `llm` or `embedding`.
        var type: String
        /// The most context an instance may be loaded with.
        var maxContextLength: Int
        /// True when the model accepts images.
        var vision: Bool
        /// `capabilities.reasoning.allowed_options`; nil when the model does not reason.
        var reasoningOptions: [String]?
        /// `capabilities.reasoning.default`.
        var reasoningDefault: String?
        /// `gguf` (LM Studio's llama.cpp engine) or `mlx`.
        var format: String?
        /// True for a mixture-of-experts model, named by its active parameters (`26B-A4B`).
        var mixtureOfExperts: Bool

        /// Reads the fields the simulator acts on out of a fixture.
        init(fixture: String) {
            let json = JSON.object(fixture) ?? [:]
            self.fixture = fixture
            key = json["key"] as? String ?? ""
            type = json["type"] as? String ?? "llm"
            maxContextLength = json["max_context_length"] as? Int ?? 4096
            let capabilities = json["capabilities"] as? [String: Any]
            vision = capabilities?["vision"] as? Bool ?? false
            let reasoning = capabilities?["reasoning"] as? [String: Any]
            reasoningOptions = reasoning?["allowed_options"] as? [String]
            reasoningDefault = reasoning?["default"] as? String
            format = json["format"] as? String
            mixtureOfExperts = (json["params_string"] as? String)?.contains("-A") ?? false
        }

        /// The engine an instance of this model runs on, which decides the keys of its `config`.
        var engine: Instance.Engine {
            type == "embedding" ? .embedding : format == "gguf" ? .llamaCpp : .other
        }
    }

    /// A loaded instance of a model.
    struct Instance {
        /// The instance id: the key, or `key:N` for later instances.
        var id: String
        /// The model key.
        var key: String
        /// The context the instance was loaded with.
        var contextLength: Int
        /// The engine it runs on.
        var engine: Engine
        /// True for a mixture-of-experts model, which has `num_experts`.
        var mixtureOfExperts = false
        /// True when a chat loaded it just in time (auto-evict may unload it).
        var jit = false
        /// Optional load settings as they were requested, rendered into `config`.
        var extra: [String: Int] = [:]
        /// Boolean load settings as they were requested.
        var flags: [String: Bool] = [:]

        /// What runs an instance, which decides the keys of its configuration (`list.md`, `load.md`).
        enum Engine {
            /// An LLM on LM Studio's llama.cpp engine (`gguf`): every load option applies.
            case llamaCpp
            /// An LLM on another engine (`mlx`): the llama.cpp options do not apply.
            case other
            /// An embedding model: only the context length.
            case embedding
        }

        /// The `load_config` a load with `echo_load_config` answers (`load.md`): only the options that applied.
        var loadConfig: [String: Any] {
            var config: [String: Any] = ["context_length": contextLength]
            guard engine == .llamaCpp else { return config }
            config["eval_batch_size"] = extra["eval_batch_size"] ?? 512
            config["flash_attention"] = flags["flash_attention"] ?? true
            config["offload_kv_cache_to_gpu"] = flags["offload_kv_cache_to_gpu"] ?? true
            if mixtureOfExperts { config["num_experts"] = extra["num_experts"] ?? 8 }
            return config
        }

        /// The `config` object of `loaded_instances` (`list.md`): the load config, plus `parallel` for LLMs
        /// (`listsParallel` false: a server from before `parallel` was documented).
        func config(listsParallel: Bool) -> [String: Any] {
            var config = loadConfig
            if engine != .embedding, listsParallel { config["parallel"] = extra["parallel"] ?? 4 }
            return config
        }
    }

    /// What a stored response remembers of its conversation.
    struct Chain {
        /// User inputs of every turn so far, oldest first.
        var inputs: [String]
        /// Characters of every input, reply and system prompt so far (tokens are estimated as chars/4).
        var characters: Int
    }

    /// A download job, advanced one step per status poll.
    struct Download {
        /// The `job_id`.
        var id: String
        /// The key the model gets once downloaded.
        var model: String
        /// The `total_size_bytes`.
        var totalBytes: Int
        /// Status polls so far; each advances the job by a quarter.
        var polls = 0
        /// The `status`: `downloading`, `completed` or `failed`.
        var status = "downloading"
        /// The `completed_at` time once completed.
        var completedAt: String?
    }

    /// Downloaded models in listing order.
    var models: [Model]
    /// Loaded instances in load order.
    var instances: [Instance] = []
    /// Stored conversations by `response_id`.
    var chains: [String: Chain] = [:]
    /// Download jobs by `job_id`.
    var downloads: [String: Download] = [:]
    /// Every request received, oldest first.
    var requests: [RecordedRequest] = []
    /// Numbers the next download job.
    var nextJob = 1

    /// The catalogue with `loadedAtStart` loaded.
    init(loadedAtStart: [String: Int], hostileModels: Bool = false, observedShapes: Bool = false) {
        models =
            (Catalogue.fixtures + (hostileModels ? HostileScenarios.modelFixtures : [])
            + (observedShapes ? Catalogue.observedFixtures : []))
            .map(Model.init(fixture:))
        for (key, context) in loadedAtStart.sorted(by: { $0.key < $1.key }) where model(key) != nil {
            _ = load(key: key, contextLength: context)
        }
    }

    /// The downloaded model with this key.
    func model(_ key: String) -> Model? {
        models.first { $0.key == key }
    }

    /// Adds an instance named `key`, `key:2`, `key:3`… (the first free one).
    ///
    /// Observed, not documented: a second instance of a model gets the id `key:2`.
    mutating func load(key: String, contextLength: Int, jit: Bool = false) -> Instance {
        var id = key
        var suffix = 2
        while instances.contains(where: { $0.id == id }) {
            id = "\(key):\(suffix)"
            suffix += 1
        }
        let found = model(key)
        let instance = Instance(
            id: id, key: key, contextLength: contextLength, engine: found?.engine ?? .llamaCpp,
            mixtureOfExperts: found?.mixtureOfExperts ?? false, jit: jit)
        instances.append(instance)
        return instance
    }
}
