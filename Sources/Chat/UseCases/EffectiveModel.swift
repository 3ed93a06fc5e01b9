import LMStudio
import Library

/// The model a conversation uses, as the one rule resolves it, and that model's state on the server.
///
/// The rule: the conversation's model (a model key, or an instance id such as `key:2` from
/// `loaded_instances[].id`), else the model chosen before the conversation exists, else the configured
/// `default_model`, else the first loaded LLM.
public struct EffectiveModel: Sendable, Equatable {
    /// Where the model stands on the server.
    public enum State: String, Sendable, Equatable {
        case loaded
        case notLoaded = "not loaded"
        case notDownloaded = "not downloaded"
        case serverUnreachable = "server unreachable"
    }

    /// The model as the conversation names it: a key or an instance id.
    public let reference: String
    /// The server's model, when the reference names a downloaded one.
    public let model: Model?
    /// The loaded instance that serves the conversation (the named instance, else the key's first one).
    public let instance: LoadedInstance?
    public let state: State

    /// The model key (the reference itself when the server does not know it).
    public var key: String { model?.key ?? reference }

    /// Resolves the rule against `models` (nil when the server could not be asked); nil when no model applies.
    public static func resolve(conversation: Conversation?, pending: String?, defaultModel: String?, models: [Model]?)
        -> EffectiveModel?
    {
        let fallback = models?.first { $0.canChat && $0.isLoaded }?.key
        guard let reference = conversation?.modelKey ?? pending ?? defaultModel ?? fallback else { return nil }
        guard let models else {
            return EffectiveModel(reference: reference, model: nil, instance: nil, state: .serverUnreachable)
        }
        guard let model = models.model(named: reference) else {
            return EffectiveModel(reference: reference, model: nil, instance: nil, state: .notDownloaded)
        }
        let instance =
            model.loadedInstances.first { $0.id == reference }
            ?? model.loadedInstances.first { $0.id == model.key } ?? model.loadedInstances.first
        return EffectiveModel(
            reference: reference, model: model, instance: instance, state: instance == nil ? .notLoaded : .loaded)
    }

    /// The context length in effect: the serving instance's, else the conversation's setting, else `configured`, else the model's maximum.
    public func contextLength(settings: ConversationSettings?, configured: Int?) -> Int? {
        instance?.config.contextLength ?? settings?.contextLength ?? configured ?? model?.maxContextLength
    }
}
