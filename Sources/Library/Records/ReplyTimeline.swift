/// One part of a saved reply, as the server produced it.
public enum ReplyTimelinePart: Equatable, Sendable {
    case reasoning(String)
    case text(String)
    case toolCall(ToolCallRecord)
}

extension Message {
    /// The reply's reasoning, answer text and tool calls in the order the server produced them.
    ///
    /// Each call's offsets cut the reasoning and the answer; between two calls the reasoning comes before the
    /// text. A call saved without offsets (before llmster kept the order) comes after all reasoning before it
    /// and before any text, the way such replies were always shown. Offsets out of order or range are clamped,
    /// so a hand-edited library or archive never traps.
    public func timeline(toolCalls: [ToolCallRecord]) -> [ReplyTimelinePart] {
        var parts: [ReplyTimelinePart] = []
        var reasoningAt = 0
        var answerAt = 0
        func cut(_ source: String, from start: Int, to end: Int) -> String {
            let utf8 = source.utf8
            let bytes = utf8[utf8.index(utf8.startIndex, offsetBy: start)..<utf8.index(utf8.startIndex, offsetBy: end)]
            var piece = String(decoding: bytes, as: UTF8.self)
            // Each new part after the first was joined with a blank line; the blank line is not part of it.
            if start > 0, piece.hasPrefix(Self.partSeparator) { piece.removeFirst(Self.partSeparator.count) }
            return piece
        }
        func advance(reasoningTo reasoningEnd: Int, answerTo answerEnd: Int) {
            let reasoningEnd = min(max(reasoningEnd, reasoningAt), reasoning.utf8.count)
            let answerEnd = min(max(answerEnd, answerAt), text.utf8.count)
            let thought = cut(reasoning, from: reasoningAt, to: reasoningEnd)
            if !thought.isEmpty { parts.append(.reasoning(thought)) }
            let said = cut(text, from: answerAt, to: answerEnd)
            if !said.isEmpty { parts.append(.text(said)) }
            reasoningAt = reasoningEnd
            answerAt = answerEnd
        }
        for call in toolCalls {
            advance(reasoningTo: call.reasoningOffset ?? reasoning.utf8.count, answerTo: call.answerOffset ?? answerAt)
            parts.append(.toolCall(call))
        }
        advance(reasoningTo: reasoning.utf8.count, answerTo: text.utf8.count)
        return parts
    }

    /// The blank line that joins two answer (or two reasoning) parts in the saved text; the engine joins them
    /// with it, and `timeline(toolCalls:)` cuts at it.
    public static let partSeparator = "\n\n"
}
