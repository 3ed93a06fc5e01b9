import Library
import TestSupport
import Testing

/// `--demo` answers what a message asks for in plain words, so a newcomer's first questions show what llmster draws.
@Suite(.spawnsProcesses) struct DemoAnswerTests {
    @Test func aTableAndCodeAskedForAreInTheAnswer() async throws {
        let cli = try CLI(server: "http://127.0.0.1:9")
        let asked = try await cli.run(["--demo", "ask", "Show me a table and some code"])
        #expect(asked.status == 0, "\(asked)")
        #expect(asked.output.contains("| Model | Size |") && asked.output.contains("```python"), "\(asked.output)")
        let plain = try await cli.run(["--demo", "ask", "hello there"])
        #expect(!plain.output.contains("| Model |") && plain.output.contains("Ask for a *table*"), "\(plain.output)")
    }

    /// "think", "search" and "long" get reasoning, a tool call and a long answer (kept with `--library`).
    @Test func reasoningAToolCallAndALongAnswerAskedForAreGiven() async throws {
        let cli = try CLI(server: "http://127.0.0.1:9")
        let path = cli.sandbox.root + "/demo.sqlite3"
        let asked = try await cli.run([
            "--demo", "--library", path, "ask", "think, then search the docs and write a long answer"
        ])
        #expect(asked.status == 0, "\(asked)")
        let library = try LibraryStore(path: path)
        let conversation = try #require(try library.mostRecentConversation())
        let reply = try #require(try library.messages(conversationId: conversation.id).last)
        #expect(!reply.reasoning.isEmpty, "reasoning for 'think'")
        #expect(try !library.toolCalls(messageId: reply.id).isEmpty, "a tool call for 'search'")
        #expect(reply.text.utf8.count > 5_000, "a long answer for 'long': \(reply.text.utf8.count) bytes")
    }
}
