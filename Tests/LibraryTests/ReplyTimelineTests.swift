import Foundation
import Library
import Testing

@Suite struct ReplyTimelineTests {
    private func reply(text: String, reasoning: String, calls: [(answer: Int?, reasoning: Int?)]) throws
        -> (Message, [ToolCallRecord], TemporaryLibrary)
    {
        let library = TemporaryLibrary()
        let store = try library.open()
        let conversation = try store.createConversation(title: "Tools")
        let message = try store.appendMessage(conversationId: conversation.id, role: .assistant, text: text, reasoning: reasoning)
        try store.replaceToolCalls(messageId: message.id, calls.enumerated().map { position, offsets in
            ToolCallRecord(messageId: message.id, position: position, name: "tool\(position)", argumentsJSON: "{}",
                           status: .succeeded, answerOffset: offsets.answer, reasoningOffset: offsets.reasoning)
        })
        return (message, try store.toolCalls(messageId: message.id), library)
    }

    @Test func savedOffsetsReadBackAsTheServersOrder() throws {
        let (message, calls, _) = try reply(
            text: "Let me look that up.\n\nThe answer: ünï.", reasoning: "Think.\n\nThink again.",
            calls: [(0, 6), (20, 20)])
        #expect(calls.map(\.answerOffset) == [0, 20], "the offsets are stored")
        #expect(calls.map(\.reasoningOffset) == [6, 20])
        #expect(message.timeline(toolCalls: calls) == [
            .reasoning("Think."), .toolCall(calls[0]), .reasoning("Think again."), .text("Let me look that up."),
            .toolCall(calls[1]), .text("The answer: ünï."),
        ])
    }

    @Test func callsSavedWithoutOffsetsComeAfterTheReasoningAndBeforeTheText() throws {
        let (message, calls, _) = try reply(text: "Answer.", reasoning: "Thought.", calls: [(nil, nil), (nil, nil)])
        #expect(message.timeline(toolCalls: calls) == [
            .reasoning("Thought."), .toolCall(calls[0]), .toolCall(calls[1]), .text("Answer."),
        ])
    }

    @Test func offsetsOutOfRangeOrOrderNeverTrap() throws {
        let (message, calls, _) = try reply(text: "ü text", reasoning: "", calls: [(99, 99), (1, -4)])
        #expect(message.timeline(toolCalls: calls).count == 3)
        #expect(message.timeline(toolCalls: calls).first == .text("ü text"))
    }
}
