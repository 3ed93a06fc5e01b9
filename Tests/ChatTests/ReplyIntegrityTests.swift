import Chat
import Library
import Testing

/// The rule for events a reply cannot trust, over loopback against the simulator: an event that cannot be
/// read makes the reply incomplete with a reason, nothing after `chat.end` is kept, and a final text that
/// differs from the stream is kept and recorded as rewritten.
@Suite struct ReplyIntegrityTests {
    @Test(arguments: ["surrogate", "nul", "nesting"])
    func anUnreadableEventMakesTheReplyIncompleteWithAReason(kind: String) async throws {
        let harness = try ChatSessionTests.Harness()
        let reply = try await harness.session.send(
            Turn(text: "[[sim:bad-event=\(kind)]] echo:alpha beta gamma delta"),
            in: harness.conversationId
        ) { _ in }
        #expect(reply.status == .incomplete, "\(reply.state.answer.debugDescription)")
        #expect(
            reply.errorMessage?.contains("1 event llmster could not read") == true,
            "\(reply.errorMessage ?? "no message")")
        #expect(reply.errorMessage?.contains("message.delta") == true)
        let saved = try #require(try harness.observer().message(id: reply.messageId))
        #expect(saved.status == .incomplete && saved.text == "alpha beta gamma delta")
        #expect(saved.error == reply.errorMessage)
    }

    @Test func nothingAfterChatEndIsSaved() async throws {
        let harness = try ChatSessionTests.Harness()
        let reply = try await harness.session.send(
            Turn(text: "[[sim:after-end]] echo:the whole answer"), in: harness.conversationId
        ) { _ in }
        #expect(reply.status == .complete)
        #expect(try harness.observer().message(id: reply.messageId)?.text == "the whole answer")
    }

    @Test func aRewrittenAnswerKeepsTheServersTextAndSaysItWasRewritten() async throws {
        let harness = try ChatSessionTests.Harness()
        let reply = try await harness.session.send(Turn(text: "[[sim:rewrite]] echo:draft"), in: harness.conversationId)
        { _ in }
        #expect(reply.status == .complete)
        let saved = try #require(try harness.observer().message(id: reply.messageId))
        #expect(saved.text == "Revised: draft" && saved.isRewritten)

        let plain = try await harness.session.send(Turn(text: "echo:plain"), in: harness.conversationId) { _ in }
        #expect(try harness.observer().message(id: plain.messageId)?.isRewritten == false)
    }
}
