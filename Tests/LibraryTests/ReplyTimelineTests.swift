import Foundation
import Testing

@testable import Library

@Suite struct ReplyTimelineTests {
    private func reply(text: String, reasoning: String, calls: [(answer: Int?, reasoning: Int?)]) throws
        -> (Message, [ToolCallRecord], TemporaryLibrary)
    {
        let library = TemporaryLibrary()
        let store = try library.open()
        let conversation = try store.createConversation(title: "Tools")
        let message = try store.appendMessage(
            conversationId: conversation.id, role: .assistant,
            MessageContent(text: text, reasoning: reasoning))
        try store.replaceToolCalls(
            messageId: message.id,
            calls.enumerated().map { position, offsets in
                ToolCallRecord(
                    messageId: message.id, position: position, name: "tool\(position)", argumentsJSON: "{}",
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
        #expect(
            message.timeline(toolCalls: calls) == [
                .reasoning("Think."), .toolCall(calls[0]), .reasoning("Think again."), .text("Let me look that up."),
                .toolCall(calls[1]), .text("The answer: ünï.")
            ])
    }

    @Test func callsSavedWithoutOffsetsComeAfterTheReasoningAndBeforeTheText() throws {
        let (message, calls, _) = try reply(text: "Answer.", reasoning: "Thought.", calls: [(nil, nil), (nil, nil)])
        #expect(
            message.timeline(toolCalls: calls) == [
                .reasoning("Thought."), .toolCall(calls[0]), .toolCall(calls[1]), .text("Answer.")
            ])
    }

    @Test func offsetsOutOfRangeOrOrderNeverTrap() throws {
        let (message, calls, _) = try reply(text: "ü text", reasoning: "", calls: [(99, 99), (1, -4)])
        #expect(message.timeline(toolCalls: calls).count == 3)
        #expect(message.timeline(toolCalls: calls).first == .text("ü text"))
    }

    @Test func toolCallsOfALibraryBeforeTheOrderWasKeptUpgradeWithoutOffsets() throws {
        let library = TemporaryLibrary()
        try FileManager.default.createDirectory(atPath: library.directory + "/data", withIntermediateDirectories: true)
        do {
            let connection = try SQLiteConnection(path: library.path)
            for step in Schema.migrations[..<4] { try connection.execute(step) }
            try connection.execute("PRAGMA user_version = 4")
            try connection.execute(
                """
                INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 'Old', 1, 1);
                INSERT INTO messages (id, conversation_id, position, role, text, reasoning, status, created_at, updated_at)
                    VALUES ('m1', 'c1', 0, 'assistant', 'Answer.', 'Thought.', 'complete', 1, 1);
                INSERT INTO tool_calls (message_id, position, name, arguments, status)
                    VALUES ('m1', 0, 'search', '{}', 'succeeded');
                """)
        }
        let store = try library.open()
        let calls = try store.toolCalls(messageId: "m1")
        #expect(calls.map(\.name) == ["search"])
        #expect(calls.first?.answerOffset == nil && calls.first?.reasoningOffset == nil)
        let message = try #require(try store.message(id: "m1"))
        #expect(message.timeline(toolCalls: calls) == [.reasoning("Thought."), .toolCall(calls[0]), .text("Answer.")])
    }

    @Test func anArchivedToolCallWithoutOffsetsStillReads() throws {
        let json = #"{"name":"search","arguments":"{}","status":"succeeded"}"#
        let call = try JSONDecoder().decode(ToolCallDocument.self, from: Data(json.utf8))
        #expect(call.name == "search" && call.answerOffset == nil && call.reasoningOffset == nil)
    }
}
