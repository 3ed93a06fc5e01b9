import Foundation
import LMStudio
import Library

/// Titles a conversation with a small model after its first reply, and summarizes one for a recap, without storing
/// anything on the server.
public struct Summarizer: Sendable {
    public let client: LMStudioClient
    /// The `summarizer_model` key.
    public let model: String

    /// Creates a summarizer that asks `model` on `client`.
    public init(client: LMStudioClient, model: String) {
        self.client = client
        self.model = model
    }

    /// A short title for a conversation that starts with `message` and `reply`; nil when the model gave nothing usable.
    public func title(message: String, reply: String) async throws -> String? {
        let prompt = """
            Write a title of at most six words for this conversation. Answer with the title only.

            User: \(message.prefix(2000))
            Assistant: \(reply.prefix(2000))
            """
        let result = try await client.chat(ChatRequest(model: model, input: .text(prompt), stream: false, store: false))
        let text = result.output.compactMap { item -> String? in
            if case .message(let text) = item { return text.string }
            return nil
        }.joined()
        let line = text.split(separator: "\n").first.map(String.init)?
            .trimmingCharacters(in: CharacterSet(charactersIn: " \t\"'`*#."))
        guard let line, !line.isEmpty else { return nil }
        return ChatSession.title(from: line)
    }

    /// A summary of a conversation's transcript that keeps what a continuation needs; asked with `store: false`.
    public func summary(of transcript: String) async throws -> String {
        let prompt = """
            Summarize the conversation below for its continuation: keep facts, names, numbers, decisions, open questions \
            and what the user asked for. Answer with the summary only.

            \(transcript)
            """
        let result = try await client.chat(ChatRequest(model: model, input: .text(prompt), stream: false, store: false))
        let text = result.output.compactMap { item -> String? in
            if case .message(let text) = item { return text.string }
            return nil
        }.joined()
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Renames the conversation when it has exactly one reply; failures leave the first-message title.
    public func titleIfFirstReply(conversationId: String, chat: ChatSession) async {
        guard let messages = try? await chat.withLibrary({ try $0.messages(conversationId: conversationId) }),
            messages.filter({ $0.role == .assistant }).count == 1,
            let user = messages.first(where: { $0.role == .user }),
            let reply = messages.last(where: { $0.role == .assistant }),
            let title = try? await title(message: user.text, reply: reply.text)
        else { return }
        try? await chat.withLibrary { try $0.rename(conversationId: conversationId, to: title) }
    }
}
