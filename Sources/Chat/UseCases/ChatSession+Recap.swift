import LMStudio
import Library

extension ChatSession {
    /// What a recap of the conversation's earlier turns would cost in a fresh server context; nothing is sent.
    ///
    /// `excludingLastTurn` leaves out the last user turn and its reply, which a retry or an edit replaces.
    public func recapEstimate(conversationId: String, excludingLastTurn: Bool = false) async throws -> RecapEstimate {
        let conversation = try existingConversation(conversationId)
        let transcript = try earlierTranscript(conversationId, excludingLastTurn: excludingLastTurn) ?? ""
        let models = try await serverCall { try await self.models() }
        let model = EffectiveModel.resolve(
            conversation: conversation, pending: nil, defaultModel: configuration.defaultModelKey, models: models)
        return RecapEstimate(
            transcriptTokens: transcript.isEmpty ? 0 : ContextMeter.estimateTokens(transcript),
            budget: recapBudget(conversation: conversation, model: model?.model),
            summarizer: configuration.summarizerModelKey ?? model?.key ?? "the conversation's model")
    }

    /// The recap to send before `turn` in a fresh context: the transcript when it fits, else a summary made by the
    /// summarizer model (else the conversation's model) without storing anything on the server; nil when there are
    /// no earlier turns.
    func recap(conversationId: String, excludingLastTurn: Bool, model: Model, reference: String) async throws -> Recap?
    {
        let conversation = try existingConversation(conversationId)
        guard let transcript = try earlierTranscript(conversationId, excludingLastTurn: excludingLastTurn) else {
            return nil
        }
        let budget = recapBudget(conversation: conversation, model: model)
        if ContextMeter.estimateTokens(transcript) <= budget {
            return Recap(kind: .transcript, text: Recap.block(transcript, kind: .transcript))
        }
        let summarizerModel = configuration.summarizerModelKey ?? reference
        // The summarizer sees the latest part of the transcript that fits its own request.
        let tail = String(transcript.suffix(max(budget, 1024) * 4))
        let summary = try await serverCall {
            try await Summarizer(client: client, model: summarizerModel).summary(of: tail)
        }
        return Recap(
            kind: .summary(model: summarizerModel), text: Recap.block(summary, kind: .summary(model: summarizerModel)))
    }

    /// The transcript of the current branch before the new turn; `excludingLastTurn` leaves out the last user turn and
    /// its reply, which a retry or an edit replaces.
    private func earlierTranscript(_ conversationId: String, excludingLastTurn: Bool) throws -> String? {
        var messages = try storage { try library.messages(conversationId: conversationId) }
        if excludingLastTurn, let last = messages.lastIndex(where: { $0.role == .user }) {
            messages.removeSubrange(last...)
        }
        return Recap.transcript(of: messages)
    }

    /// Three quarters of the context the answering instance has (else the conversation's or configured context
    /// length, else 4,096 tokens), leaving room for the new message and the reply.
    private func recapBudget(conversation: Conversation, model: Model?) -> Int {
        let context =
            model?.loadedInstances.first?.config.contextLength ?? conversation.settings.contextLength
            ?? configuration.contextLength ?? 4096
        return context * 3 / 4
    }
}
