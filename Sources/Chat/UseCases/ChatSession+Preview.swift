import Foundation
import LMStudio
import Library

extension ChatSession {
    /// The `/api/v1/chat` request `send` would make now for `turn` on `conversationId` (nil: a conversation not made
    /// yet, with `overrides` as its settings), for an editor's dry run: nothing is sent, saved or loaded.
    ///
    /// The model is the one `send` resolves (the `EffectiveModel` rule); an integration goes without the secret
    /// headers llmster would add from its credentials file. With `freshContext` it is the first request of a fresh
    /// context (no `previous_response_id`); the recap that `send` would put before the text is not made here.
    public func previewRequest(
        _ turn: Turn, in conversationId: String?, freshContext: Bool = false,
        overrides: ConversationOverrides = ConversationOverrides()
    ) async throws -> ChatRequest {
        var conversation =
            try conversationId.map { try existingConversation($0) }
            ?? Conversation(id: "", title: "", createdAt: Date(), updatedAt: Date())
        if let model = overrides.model { conversation.modelKey = model }
        if let systemPrompt = overrides.systemPrompt {
            conversation.systemPrompt = systemPrompt.isEmpty ? nil : systemPrompt
        }
        if let reasoning = overrides.reasoning { conversation.settings.reasoning = reasoning }
        if let integrations = overrides.integrations { conversation.settings.integrations = integrations }
        if freshContext {
            conversation.serverURL = nil
            conversation.lastResponseId = nil
        }
        let models = try await serverCall { try await self.models() }
        guard
            let effective = EffectiveModel.resolve(
                conversation: conversation, pending: nil,
                defaultModel: configuration.defaultModelKey, models: models)
        else {
            throw ChatError.noModel
        }
        let integrations = try (conversation.settings.integrations ?? []).map { name in
            guard let setting = configuration.integrations[name] else {
                throw ChatError.unknownIntegration(name, configured: configuration.integrations.keys.sorted())
            }
            return setting.requestIntegration(headers: nil)
        }
        return RequestBuilder.request(
            for: turn, conversation: conversation, model: effective.reference,
            server: configuration.server, integrations: integrations)
    }
}
