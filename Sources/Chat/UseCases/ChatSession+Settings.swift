import LMStudio
import Library

/// When a changed system prompt reaches the model.
public enum SystemPromptEffect: Sendable, Equatable {
    /// The prompt was already this text: nothing changes, the server context is kept.
    case unchanged
    /// The conversation has no server context yet: the next request carries the prompt.
    case nextRequest
    /// LM Studio takes `system_prompt` only on a context's first request: the prompt is saved, and
    /// reaches the model when the conversation continues with a fresh server context (`freshContext`).
    case needsFreshContext

    /// The one rule, for a prompt that changed on `conversation`: without a server context the next request carries it,
    /// with one it waits for a fresh context.
    public init(changing conversation: Conversation) {
        self = conversation.lastResponseId == nil ? .nextRequest : .needsFreshContext
    }
}

extension Conversation {
    /// Whether the saved system prompt waits for a fresh server context: it changed after the context began and the
    /// conversation still continues that context (a request that starts a fresh one carries the prompt).
    public var systemPromptAwaitsFreshContext: Bool { needsFreshContext && lastResponseId != nil }

    /// Saves a changed system prompt by the rule of `SystemPromptEffect`, marking it as waiting for a fresh context
    /// when it does; returns the effect.
    mutating func changeSystemPrompt(to text: String?) -> SystemPromptEffect {
        guard text != systemPrompt else { return .unchanged }
        systemPrompt = text
        let effect = SystemPromptEffect(changing: self)
        if effect == .needsFreshContext { needsFreshContext = true }
        return effect
    }
}

extension ChatSession {
    /// Checks every change against its range (and reasoning against the effective model's options), then saves them together.
    ///
    /// Nothing is saved when one change is refused (`ChatError.invalidSetting`). Returns the settings now in effect.
    public func setSettings(
        _ changes: [(ConversationSetting, ConversationSetting.Value)],
        conversationId: String
    ) async throws -> ConversationSettings {
        var conversation = try existingConversation(conversationId)
        conversation.settings = try await checkedSettings(changes, for: conversation)
        let updated = conversation
        try storage { try library.updateConversation(updated) }
        return updated.settings
    }

    /// The settings `conversation` would have after `changes`, each checked (reasoning against the options of the
    /// model `conversation` names); nothing is saved. A refused change throws `ChatError.invalidSetting`.
    func checkedSettings(
        _ changes: [(ConversationSetting, ConversationSetting.Value)],
        for conversation: Conversation
    ) async throws -> ConversationSettings {
        var settings = conversation.settings
        var reasoningOptions: [String]? = []
        var modelName: String?
        if changes.contains(where: { $0.0 == .reasoning && $0.1 != .clear }) {
            let models = try await serverCall { try await self.models() }
            let effective = EffectiveModel.resolve(
                conversation: conversation, pending: nil, defaultModel: configuration.defaultModelKey, models: models)
            modelName = effective?.key
            reasoningOptions = effective?.model.map { $0.reasoningOptions(in: models) } ?? []
        }
        do {
            for (setting, value) in changes {
                try setting.apply(value, to: &settings, model: modelName, reasoningOptions: reasoningOptions)
            }
        } catch {
            throw ChatError.invalidSetting(error)
        }
        return settings
    }

    /// Saves the conversation's system prompt (nil clears it) and says when the model sees it.
    public func setSystemPrompt(_ text: String?, conversationId: String) throws -> SystemPromptEffect {
        var conversation = try existingConversation(conversationId)
        let effect = conversation.changeSystemPrompt(to: text)
        guard effect != .unchanged else { return effect }
        let updated = conversation
        try storage { try library.updateConversation(updated) }
        return effect
    }
}
