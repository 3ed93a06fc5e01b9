import Chat
import LMStudio

/// `models/list`, `models/load`, `models/unload`.
enum ModelMethods {
    static func register(in registry: inout MethodRegistry) {
        registry.register("models/list") { context, params in
            let models = try await context.session.models(refresh: try params.bool("refresh", default: true))
            let aliases = context.session.configuration.aliases
            return .object([
                "models": .array(
                    try models.map { model in
                        guard case .object(var members) = try json(model) else { return .null }
                        members["aliases"] = .array(
                            aliases.filter { $0.value == model.key }.keys.sorted().map(JSONValue.string))
                        return .object(members)
                    }), "aliases": .object(aliases.mapValues(JSONValue.string))
            ])
        }
        registry.register("models/load") { context, params in
            let reply = try await context.session.loadModel(
                try params.string("model"), conversationId: nil, options: try loadOptions(params))
            return try .encoding(reply)
        }
        registry.register("models/select") { context, params in
            let reference = try params.string("conversationId")
            let model = try params.string("model")
            let id = try await context.session.resolveConversation(reference).id
            let selection = try await context.session.selectModel(
                model, conversationId: id, options: try loadOptions(params)
            ) { step in
                context.notify("models/progress", progress(step, requestId: context.id, conversationId: id))
            }
            return .object([
                "conversationId": .string(id),
                "model": .string(selection.model),
                "unloaded": .array(selection.unloaded.map(JSONValue.string)),
                "loaded": selection.load.map { .string($0.instanceId) } ?? .null,
                "loadTimeSeconds": selection.load?.loadTimeSeconds.map(JSONValue.number) ?? .null,
                "loadConfig": try selection.load?.loadConfig.map { try JSONValue.encoding($0) } ?? .null,
                "instanceId": selection.instanceId.map(JSONValue.string) ?? .null,
                "contextMeter": LibraryMethods.meterJSON(try await context.session.contextMeter(conversationId: id))
            ])
        }
        registry.register("models/unload") { context, params in
            let instance = try params.string("instanceId")
            try await context.session.unloadModel(instanceId: instance)
            return .object(["instanceId": .string(instance)])
        }
    }

    /// The load options of `models/load` and `models/select`: `contextLength`, `evalBatchSize`, `flashAttention`,
    /// `numExperts`, `offloadKvCacheToGpu`, each optional.
    private static func loadOptions(_ params: Params) throws -> LoadOptions {
        LoadOptions(
            contextLength: try params.optionalInteger("contextLength"),
            evalBatchSize: try params.optionalInteger("evalBatchSize"),
            flashAttention: try params.optionalBool("flashAttention"),
            numExperts: try params.optionalInteger("numExperts"),
            offloadKVCacheToGPU: try params.optionalBool("offloadKvCacheToGpu"))
    }

    /// A `models/progress` notification for one step of `models/select` (or `models/selectPending`: no conversation).
    static func progress(_ step: ModelSelectionStep, requestId: JSONValue, conversationId: String?) -> JSONValue {
        var fields: [String: JSONValue] = [
            "requestId": requestId, "conversationId": conversationId.map(JSONValue.string) ?? .null
        ]
        switch step {
        case .unloaded(let instance):
            fields["type"] = .string("unloaded")
            fields["instanceId"] = .string(instance)
        case .loading(let model):
            fields["type"] = .string("loading")
            fields["model"] = .string(model)
        case .loaded(let response):
            fields["type"] = .string("loaded")
            fields["instanceId"] = .string(response.instanceId)
            fields["loadTimeSeconds"] = response.loadTimeSeconds.map(JSONValue.number) ?? .null
        }
        return .object(fields)
    }

    /// A model as the server describes it (its field names), plus `loaded`.
    static func json(_ model: Model) throws -> JSONValue {
        guard case .object(var members) = try JSONValue.encoding(model) else { return .null }
        members["loaded"] = .bool(model.isLoaded)
        members["canChat"] = .bool(model.canChat)
        return .object(members)
    }
}
