import Library

extension ChatSession {
    /// Starts a new conversation set up like `conversation` — its model (or `model`, the effective one), system
    /// prompt, sampling settings, integrations and folder — with no messages; returns the new one's id.
    ///
    /// The settings go through `setSettings`, so the new conversation holds only values every face accepts.
    public func startAfresh(from conversation: Conversation, model: String?) async throws -> String {
        let integrations = conversation.settings.integrations ?? []
        let opened = try await openConversation(
            .new,
            overrides: ConversationOverrides(
                model: model ?? conversation.modelKey, systemPrompt: conversation.systemPrompt,
                folder: conversation.folderId.map { .id($0) }, integrations: integrations.isEmpty ? nil : integrations))
        let values = ConversationSetting.allCases.compactMap { setting in
            setting.value(in: conversation.settings).map { (setting, ConversationSetting.Value.text($0)) }
        }
        if !values.isEmpty { _ = try await setSettings(values, conversationId: opened.conversation.id) }
        return opened.conversation.id
    }

    /// Removes `conversationId` when a face leaves it with nothing in it (no title, message or draft), so `/new`
    /// and `/clear` followed by another switch leave no empty conversations behind; a conversation given a title
    /// was made on purpose and stays. Returns whether it was removed.
    @discardableResult
    public func discardIfEmpty(_ conversationId: String) throws -> Bool {
        try withLibrary { library in
            guard let conversation = try library.conversation(id: conversationId), conversation.title.isEmpty,
                conversation.draft.isEmpty,
                try library.messages(conversationId: conversationId).isEmpty
            else { return false }
            try library.delete(conversationId: conversationId)
            return true
        }
    }
}
