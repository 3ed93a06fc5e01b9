import Library

/// The earlier turns of a conversation, sent as the first input of a fresh server context when the server no longer
/// knows the conversation's `response_id` (restarted, another machine, a restored backup).
///
/// A transcript when it fits the instance's context, else a summary of it made with `store: false`.
public struct Recap: Sendable, Equatable {
    /// What the recap holds.
    public enum Kind: Sendable, Equatable {
        /// The earlier turns word for word.
        case transcript
        /// A summary of them by the named model.
        case summary(model: String)
    }

    /// Transcript or summary.
    public var kind: Kind
    /// The delimited block sent before the new message.
    public var text: String
    /// Its estimated size in tokens (`ContextMeter.estimateTokens`).
    public var tokens: Int { ContextMeter.estimateTokens(text) }

    /// The input of the first request of the fresh context: the recap, then the new message.
    public func input(before message: String) -> String {
        text + "\n\n" + message
    }

    /// The earlier turns as one clearly delimited transcript; nil when there are none. A message no reply answered
    /// (a send that failed, which older versions saved) is left out: the model never saw it.
    static func transcript(of messages: [Message]) -> String? {
        let conversation = messages.filter { $0.role != .system }
        let turns = conversation.indices.compactMap { index -> String? in
            let message = conversation[index]
            guard !message.text.isEmpty else { return nil }
            if message.role == .user, index + 1 == conversation.count || conversation[index + 1].role == .user {
                return nil
            }
            switch message.role {
            case .user: return "User: " + message.text
            case .assistant: return "Assistant: " + message.text
            case .system: return nil
            }
        }
        guard !turns.isEmpty else { return nil }
        return turns.joined(separator: "\n\n")
    }

    /// Wraps `body` (a transcript or a summary) in the markers that tell the model what it is.
    static func block(_ body: String, kind: Kind) -> String {
        let what =
            kind == .transcript ? "a transcript of our earlier conversation" : "a summary of our earlier conversation"
        return "[llmster recap: \(what), sent because the server no longer has its context]\n"
            + "<<<RECAP\n" + body + "\nRECAP>>>\n[end of recap; my new message follows]"
    }
}

/// What a recap of a conversation would cost, shown before it is sent.
public struct RecapEstimate: Sendable, Equatable {
    /// The transcript's estimated tokens.
    public var transcriptTokens: Int
    /// The tokens a recap may take in the instance's context (three quarters of it, leaving room for the reply).
    public var budget: Int
    /// Whether the transcript fits, else a summary is made (by `summarizer`).
    public var fits: Bool { transcriptTokens <= budget }
    /// The model that would summarize it.
    public var summarizer: String
    /// Whether there is anything to recap.
    public var isEmpty: Bool { transcriptTokens == 0 }

    /// "the earlier turns as a transcript (about 1,234 tokens)" or "a summary of the earlier turns (about 9,000
    /// tokens of transcript) by MODEL".
    public var summary: String {
        if isEmpty { return "nothing to recap: no earlier turns" }
        return fits
            ? "the earlier turns as a transcript (about \(Self.grouped(transcriptTokens)) tokens)"
            : "a summary of the earlier turns (about \(Self.grouped(transcriptTokens)) tokens of transcript, more than the \(Self.grouped(budget)) that fit) by \(summarizer)"
    }

    private static func grouped(_ number: Int) -> String {
        let digits = Array(String(number))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text += "," }
            text.append(digit)
        }
        return text
    }
}
