import LMStudio

extension Model {
    /// Whether the model can answer a chat: the one rule every face asks (an LLM; embedding models and kinds llmster
    /// does not know cannot).
    public var canChat: Bool { type == .llm }

    /// Whether LM Studio can load the model: LLMs and embedding models.
    public var canLoad: Bool { type == .llm || type == .embedding }
}
