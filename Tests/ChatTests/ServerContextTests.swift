import Chat
import Foundation
import LMStudio
import Library
import TestSupport
import Testing

/// A conversation whose context another server holds is never continued silently without its earlier turns.
@Suite struct ServerContextTests {
    @Test func aContextHeldByAnotherServerIsNamedAndAFreshContextGoesOn() async throws {
        let harness = try ChatSessionTests.Harness()
        _ = try await harness.session.send(Turn(text: "remember pears"), in: harness.conversationId) { _ in }
        let elsewhere = "http://user:secret@127.0.0.1:9"
        let lastResponse = try #require(try harness.observer().conversation(id: harness.conversationId)?.lastResponseId)
        try harness.observer().setContinuation(
            conversationId: harness.conversationId, serverURL: elsewhere, responseId: lastResponse)
        let conversation = try #require(try harness.observer().conversation(id: harness.conversationId))
        let stored = "http://127.0.0.1:9"
        #expect(
            harness.session.serverContext(of: conversation) == .elsewhere(server: stored),
            "the library keeps no userinfo")
        let sent = harness.fixture.requests(to: "/api/v1/chat").count

        let outcome = await harness.session.submit(TurnSubmission(text: "recall please"), in: harness.conversationId) {
            _ in
        }
        guard case .needsDecision(.freshContext(.continuationElsewhere(let error), _), let returned) = outcome else {
            Issue.record("a context held elsewhere asks for a fresh one: \(outcome)")
            return
        }
        #expect(
            error
                == .continuationElsewhere(
                    conversationId: harness.conversationId, server: stored, configured: harness.fixture.url))
        let text = String(describing: error)
        #expect(
            text.contains("127.0.0.1:9") && text.contains(harness.fixture.url) && !text.contains("secret"), "\(text)")
        #expect(harness.fixture.requests(to: "/api/v1/chat").count == sent, "nothing was sent")
        #expect(
            try harness.observer().messages(conversationId: harness.conversationId).map(\.text).filter {
                $0 == "recall please"
            }.isEmpty,
            "nothing was saved")
        #expect(returned.text == "recall please")

        var fresh = returned
        fresh.serverContext = .empty
        let reply = try #require(await harness.session.submit(fresh, in: harness.conversationId) { _ in }.reply)
        #expect(reply.status == .complete)
        #expect(harness.fixture.requests(to: "/api/v1/chat").last?.field("previous_response_id") == nil)
        let now = try #require(try harness.observer().conversation(id: harness.conversationId))
        #expect(harness.session.serverContext(of: now) == .here)
    }
}
