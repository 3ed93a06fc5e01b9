/// Everything a running simulator remembers; mutated only under the simulator's lock.
struct ServerState {
    /// A downloaded model, kept as its literal JSON fixture plus the fields the simulator acts on.
    struct Model {
        var fixture: String
        var key: String
        var type: String
        var maxContextLength: Int
        var vision: Bool
        var reasoningOptions: [String]?
        var reasoningDefault: String?

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
        }
    }

    /// A loaded instance of a model.
    struct Instance {
        var id: String
        var key: String
        var contextLength: Int
        /// Optional load settings as they were requested, rendered into `config`.
        var extra: [String: Int] = [:]
        var flags: [String: Bool] = [:]

        var config: [String: Any] {
            var config: [String: Any] = ["context_length": contextLength, "eval_batch_size": extra["eval_batch_size"] ?? 512]
            config["flash_attention"] = flags["flash_attention"] ?? true
            if let experts = extra["num_experts"] { config["num_experts"] = experts }
            if let offload = flags["offload_kv_cache_to_gpu"] { config["offload_kv_cache_to_gpu"] = offload }
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
        var id: String
        var model: String
        var totalBytes: Int
        var polls = 0
        var status = "downloading"
        var completedAt: String?
    }

    var models: [Model]
    var instances: [Instance] = []
    var chains: [String: Chain] = [:]
    var downloads: [String: Download] = [:]
    var requests: [RecordedRequest] = []
    var nextJob = 1

    init(loadedAtStart: [String: Int]) {
        models = Catalogue.fixtures.map(Model.init(fixture:))
        for (key, context) in loadedAtStart.sorted(by: { $0.key < $1.key }) where model(key) != nil {
            _ = load(key: key, contextLength: context)
        }
    }

    func model(_ key: String) -> Model? {
        models.first { $0.key == key }
    }

    /// Adds an instance named `key`, `key:2`, `key:3`… (the first free one).
    mutating func load(key: String, contextLength: Int) -> Instance {
        var id = key
        var suffix = 2
        while instances.contains(where: { $0.id == id }) {
            id = "\(key):\(suffix)"
            suffix += 1
        }
        let instance = Instance(id: id, key: key, contextLength: contextLength)
        instances.append(instance)
        return instance
    }
}
