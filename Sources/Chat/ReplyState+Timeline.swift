extension ReplyState {
    /// Where each tool call came in the reply, in `toolCalls` order: how many UTF-8 bytes of `answer` and of
    /// `reasoning` had streamed before it (the blank line that joins the next part not counted).
    var toolCallOffsets: [(answer: Int, reasoning: Int)] {
        var offsets = Array(
            repeating: (answer: answer.utf8.count, reasoning: reasoning.utf8.count), count: toolCalls.count)
        var answerEnd = answer.utf8.count
        var reasoningEnd = reasoning.utf8.count
        let separator = Self.partSeparator.utf8.count
        for part in parts.reversed() {
            switch part {
            case .message(let start): answerEnd = max(start - separator, 0)
            case .reasoning(let start): reasoningEnd = max(start - separator, 0)
            case .toolCall(let index) where offsets.indices.contains(index): offsets[index] = (answerEnd, reasoningEnd)
            case .toolCall: break
            }
        }
        return offsets
    }
}
