import Chat
import Foundation
import HTTP
import LMStudio
import Library
import Simulator
import TestSupport
import Testing

/// A conversation whose server context is gone (the server restarted) continues with a recap of its earlier turns.
@Suite struct RecapTests {
    struct Harness {
        let fixture: SimulatorFixture
        let sandbox: Sandbox
        let session: ChatSession
        let conversationId: String

        init(summarizer: String? = nil) throws {
            fixture = try SimulatorFixture()
            sandbox = try Sandbox()
            var configuration = Configuration()
            configuration.server = fixture.url
            configuration.summarizerModel = summarizer
            let library = try LibraryStore(path: sandbox.libraryPath)
            conversationId = try library.createConversation(title: "", modelKey: "acme/tiny-1b").id
            session = ChatSession(
                client: LMStudioClient(server: fixture.url, token: nil, transport: CurlTransport()),
                library: library, configuration: configuration)
        }

        func send(_ text: String, freshContext: Bool = false, recap: Bool = false) async throws -> SavedReply {
            try await session.send(Turn(text: text), in: conversationId, freshContext: freshContext, recap: recap) {
                _ in
            }
        }

        var lastInput: String { fixture.requests(to: "/api/v1/chat").last?.field("input") ?? "" }
    }

    @Test func afterARestartTheEarlierTurnsAreSentAsATranscript() async throws {
        let harness = try Harness()
        _ = try await harness.send("echo:Noted, your favourite colour is blue.")
        harness.fixture.simulator.reset()
        let lost = await harness.session.submit(TurnSubmission(text: "recall"), in: harness.conversationId) { _ in }
        guard case .needsDecision(.freshContext(.continuationLost, let estimate?), let returned) = lost else {
            Issue.record("a lost context asks for a fresh one, with what a recap costs: \(lost)")
            return
        }
        #expect(estimate.fits && estimate.transcriptTokens > 10 && estimate.summary.contains("as a transcript (about"))
        var again = returned
        again.serverContext = .recap
        let reply = try #require(await harness.session.submit(again, in: harness.conversationId) { _ in }.reply)
        #expect(reply.status == .complete)
        let input = harness.lastInput
        #expect(input.hasPrefix("[llmster recap: a transcript of our earlier conversation"), "\(input)")
        #expect(
            input.contains(
                "User: echo:Noted, your favourite colour is blue.\n\nAssistant: Noted, your favourite colour is blue."))
        #expect(input.hasSuffix("[end of recap; my new message follows]\n\nrecall"))
        #expect(
            !input.dropLast(6).contains("User: recall"), "the resent turn is the new message, not part of the recap")
        #expect(harness.fixture.requests(to: "/api/v1/chat").last?.field("previous_response_id") == nil)
        let messages = try LibraryStore(path: harness.sandbox.libraryPath).messages(
            conversationId: harness.conversationId)
        #expect(
            messages.filter { $0.role == .user }.map(\.text) == [
                "echo:Noted, your favourite colour is blue.", "recall"
            ],
            "the library keeps the message as typed")
        _ = try await harness.send("echo:and on")
        #expect(
            harness.fixture.requests(to: "/api/v1/chat").last?.field("previous_response_id")?.hasPrefix("resp_")
                == true,
            "the recap's context continues normally")
    }

    /// A message an older version saved after its send failed (no reply) never reached the model: a recap leaves it
    /// out rather than presenting it as a turn the model answered.
    @Test func aRecapLeavesOutMessagesNoReplyAnswered() async throws {
        let harness = try Harness()
        let library = try LibraryStore(path: harness.sandbox.libraryPath)
        try library.appendMessage(
            conversationId: harness.conversationId, role: .user, MessageContent(text: "orphan from a failed send"))
        _ = try await harness.send("echo:Noted, blue.")
        harness.fixture.simulator.reset()
        _ = try await harness.send("recall", freshContext: true, recap: true)
        let input = harness.lastInput
        #expect(input.contains("User: echo:Noted, blue.\n\nAssistant: Noted, blue."), "\(input)")
        #expect(!input.contains("orphan from a failed send"), "\(input)")
    }

    @Test func aFreshContextWithoutRecapSendsOnlyTheMessage() async throws {
        let harness = try Harness()
        _ = try await harness.send("echo:first")
        harness.fixture.simulator.reset()
        _ = try await harness.send("echo:second", freshContext: true)
        #expect(harness.lastInput == "echo:second")
    }

    /// A transcript larger than the instance's context is summarized by the summarizer model, without storing it.
    @Test func aTranscriptLargerThanTheContextIsSummarized() async throws {
        let harness = try Harness(summarizer: "acme/tiny-1b")
        let long = String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 290)
        _ = try await harness.send("echo:" + long)
        harness.fixture.simulator.reset()
        let estimate = try await harness.session.recapEstimate(conversationId: harness.conversationId)
        #expect(
            !estimate.fits && estimate.summary.contains("a summary of the earlier turns")
                && estimate.summary.contains("by acme/tiny-1b"))
        let reply = try await harness.send("echo:go on", freshContext: true, recap: true)
        #expect(reply.status == .complete)
        let requests = harness.fixture.requests(to: "/api/v1/chat")
        let summary = try #require(
            requests.first { $0.field("input")?.hasPrefix("Summarize the conversation") == true })
        #expect(summary.field("store") == "false" && summary.field("model") == "acme/tiny-1b")
        #expect(
            harness.lastInput.hasPrefix("[llmster recap: a summary of our earlier conversation"),
            "\(harness.lastInput.prefix(120))")
        #expect(harness.lastInput.hasSuffix("echo:go on"))
    }
}
