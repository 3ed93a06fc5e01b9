import LMStudio
import Library
import SystemSupport

/// What choosing a conversation's model did on the server.
public struct ModelSelection: Sendable, Equatable {
    /// The model as the conversation now names it (a key, or an instance id).
    public let model: String
    /// Instances unloaded under the load policy, in order.
    public let unloaded: [String]
    /// The load that was needed; nil when an instance was already loaded.
    public let load: LoadResponse?
    /// The instance that serves the conversation.
    public let instanceId: String?
}

/// A step of `ChatSession.selectModel`, reported as it happens.
public enum ModelSelectionStep: Sendable, Equatable {
    /// This instance was unloaded.
    case unloaded(String)
    /// Loading this model key started (it can take a while).
    case loading(String)
    /// The model finished loading.
    case loaded(LoadResponse)
}

extension ChatSession {
    /// The conversation's effective model (see `EffectiveModel`); `pending` is a choice made before the conversation exists.
    ///
    /// A server that cannot be asked gives the state `serverUnreachable` rather than an error.
    public func effectiveModel(conversationId: String?, pending: String? = nil, refresh: Bool = false) async throws
        -> EffectiveModel?
    {
        let conversation = try conversationId.flatMap { id in try storage { try library.conversation(id: id) } }
        let models = try? await models(refresh: refresh)
        return EffectiveModel.resolve(
            conversation: conversation, pending: pending, defaultModel: configuration.defaultModelKey, models: models)
    }

    /// How full the conversation's context is with `model`: its context length and the latest reply's tokens.
    public func contextMeter(conversation: Conversation?, model: EffectiveModel?) throws -> ContextMeter {
        let length =
            model?.contextLength(settings: conversation?.settings, configured: configuration.contextLength)
            ?? conversation?.settings.contextLength ?? configuration.contextLength
        guard let id = conversation?.id else { return ContextMeter(usedTokens: 0, contextLength: length) }
        let statistics = try storage { try library.lastReplyStatistics(conversationId: id) }
        return ContextMeter(
            usedTokens: (statistics?.inputTokens ?? 0).saturatingAdd(statistics?.totalOutputTokens ?? 0),
            contextLength: length)
    }

    /// How full the context of the conversation with this exact id is, with its effective model against the model list
    /// (the cached one, asked again when it shows the model unloaded, since a send may have loaded it just in time; a
    /// server that cannot be asked leaves the saved or configured context length).
    public func contextMeter(conversationId: String) async throws -> ContextMeter {
        let conversation = try existingConversation(conversationId)
        func resolve(_ models: [Model]?) -> EffectiveModel? {
            EffectiveModel.resolve(
                conversation: conversation, pending: nil, defaultModel: configuration.defaultModelKey, models: models)
        }
        var model = resolve(try? await models())
        if model?.state == .notLoaded { model = resolve(try? await models(refresh: true)) }
        return try contextMeter(conversation: conversation, model: model)
    }

    /// Makes `reference` (a key or a loaded instance id) the conversation's model under the `LoadPolicy`:
    /// unloads what the policy plans, saves the choice, then loads the model when no instance serves it.
    ///
    /// Without a conversation, `pending` stands for the previous choice and nothing is saved; `replacing` names the
    /// previous model outright (a chat model loaded for another conversation, when this one's is not loaded). A model
    /// the server lacks throws `ChatError.modelNotDownloaded` with the nearest downloaded key.
    public func selectModel(
        _ reference: String, conversationId: String?, pending: String? = nil, replacing: String? = nil,
        options: LoadOptions = LoadOptions(),
        progress: @Sendable (ModelSelectionStep) async -> Void = { _ in }
    ) async throws -> ModelSelection {
        let reference = configuration.modelKey(for: reference)
        let models = try await serverCall { try await self.models(refresh: true) }
        let model = try models.downloadedModel(reference)
        guard model.canChat else { throw ChatError.notAChatModel(reference) }
        let conversation = try conversationId.map { id in try existingConversation(id) }
        let previous =
            replacing
            ?? EffectiveModel.resolve(
                conversation: conversation, pending: pending,
                defaultModel: configuration.defaultModelKey, models: models)?.model?.key
        let policy = LoadPolicy(
            keepPreviousModels: configuration.keepPreviousModels, summarizerModel: configuration.summarizerModelKey)
        let loaded = models.flatMap { model in
            model.loadedInstances.map { LoadPolicy.Instance(id: $0.id, modelKey: model.key) }
        }
        let plan = policy.plan(
            loaded: loaded, previous: previous, chosen: model.key,
            instance: reference == model.key ? nil : reference)
        invalidateModels()
        for instance in plan.unload {
            try await serverCall { try await client.unload(instanceId: instance) }
            await progress(.unloaded(instance))
        }
        if var conversation {
            conversation.modelKey = reference
            try storage { try library.updateConversation(conversation) }
        }
        var load: LoadResponse?
        if plan.load {
            await progress(.loading(model.key))
            let response = try await loadKey(model.key, conversationId: conversationId, options: options)
            await progress(.loaded(response))
            load = response
        }
        return ModelSelection(
            model: reference, unloaded: plan.unload, load: load, instanceId: load?.instanceId ?? plan.keep)
    }

    /// Loads the model `reference` names (a key, an `alias.NAME`, or a loaded instance id: another instance of its model): every face's
    /// load (`/load`, `llmster load`, rpc `models/load`) and the load policy's come here.
    ///
    /// A model the server lacks throws `ChatError.modelNotDownloaded` with the nearest key; one LM Studio cannot load,
    /// `notLoadable`. Without a context length in `options`, `contextLengthToLoad` gives it; `options` set anything else,
    /// and the reply carries the configuration the server applied (`echo_load_config`).
    public func loadModel(_ reference: String, conversationId: String?, options: LoadOptions = LoadOptions())
        async throws -> LoadResponse
    {
        let reference = configuration.modelKey(for: reference)
        let models = try await serverCall { try await self.models(refresh: true) }
        let model = try models.downloadedModel(reference)
        guard model.canLoad else { throw ChatError.notLoadable(reference) }
        return try await loadKey(model.key, conversationId: conversationId, options: options)
    }

    /// The context length a load uses when none is asked for, the one default of every face: the conversation's setting,
    /// else the configured `context_length`; nil leaves it to the server.
    public func contextLengthToLoad(conversationId: String?) throws -> Int? {
        try conversationId.map { try existingConversation($0) }?.settings.contextLength ?? configuration.contextLength
    }

    /// Unloads the loaded instance `instanceId`; one the server does not list as loaded throws `ChatError.notLoaded`.
    public func unloadModel(instanceId: String) async throws {
        let models = try await serverCall { try await self.models(refresh: true) }
        guard models.contains(where: { $0.loadedInstances.contains { $0.id == instanceId } }) else {
            throw ChatError.notLoaded(instance: instanceId)
        }
        defer { invalidateModels() }
        try await serverCall { try await client.unload(instanceId: instanceId) }
    }

    /// Starts downloading a model on the server (or finds it already downloaded).
    public func download(_ request: DownloadRequest) async throws -> DownloadStatus {
        defer { invalidateModels() }
        return try await serverCall { try await client.download(request) }
    }

    /// The state of the server's download job `jobId`.
    public func downloadStatus(jobId: String) async throws -> DownloadStatus {
        try await serverCall { try await client.downloadStatus(jobId: jobId) }
    }

    func loadKey(_ key: String, conversationId: String?, options: LoadOptions) async throws -> LoadResponse {
        var options = options
        if options.contextLength == nil {
            options.contextLength = try contextLengthToLoad(conversationId: conversationId)
        }
        defer { invalidateModels() }
        let request = LoadRequest(model: key, options: options)
        return try await serverCall { try await client.load(request) }
    }

    /// The conversation with exactly this id, else `LibraryError.notFound` (as `ChatError.storage`).
    func existingConversation(_ id: String) throws -> Conversation {
        guard let conversation = try storage({ try library.conversation(id: id) }) else {
            throw ChatError.storage(.notFound(kind: "conversation", reference: id))
        }
        return conversation
    }
}
