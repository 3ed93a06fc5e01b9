extension ChatSession {
    /// Titles a conversation after its first reply with the configured summarizer model; without one, or when the
    /// summarizer fails, the title from the first message stays.
    public func titleFirstReply(conversationId: String) async {
        guard let model = configuration.summarizerModel else { return }
        await Summarizer(client: client, model: model).titleIfFirstReply(conversationId: conversationId, chat: self)
    }
}
