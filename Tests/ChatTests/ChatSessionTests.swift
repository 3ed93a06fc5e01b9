import Foundation
import HTTP
import LMStudio
import Library
import Simulator
import Synchronization
import TestSupport
import Testing

@testable import Chat

/// `ChatSession` against the simulator over loopback, with a real library file.
@Suite struct ChatSessionTests {
    struct Harness {
        let fixture: SimulatorFixture
        let sandbox: Sandbox
        let session: ChatSession
        let conversationId: String

        init(
            configure: (inout Configuration) -> Void = { _ in }, systemPrompt: String? = nil,
            model: String = "acme/tiny-1b",
            simulator: SimulatorOptions = SimulatorOptions()
        ) throws {
            fixture = try SimulatorFixture(simulator)
            sandbox = try Sandbox()
            var configuration = Configuration()
            configuration.server = fixture.url
            configuration.displayIntervalMilliseconds = 20
            configure(&configuration)
            let library = try LibraryStore(path: sandbox.libraryPath)
            conversationId = try library.createConversation(
                title: "", folderId: nil, modelKey: model, systemPrompt: systemPrompt,
                settings: ConversationSettings()
            ).id
            session = ChatSession(
                client: LMStudioClient(server: fixture.url, token: nil, transport: CurlTransport()),
                library: library, configuration: configuration, saveInterval: .milliseconds(100))
        }

        /// The harness's conversation as `openConversation` answers for a conversation it made for the turn.
        func openedForTurn() throws -> OpenedConversation {
            let conversation = try #require(try observer().conversation(id: conversationId))
            return OpenedConversation(
                conversation: conversation, isNew: true, enabledIntegrations: [], systemPrompt: nil)
        }

        /// A second connection to the library file, as another process would have.
        func observer() throws -> LibraryStore { try LibraryStore(path: sandbox.libraryPath) }

        /// The reply once `observer` sees some of its text saved while it streams; nil after 1,000 looks, 20 ms apart
        /// (counted, not timed: while other tests keep every thread of the pool busy, neither the session nor this
        /// loop moves on).
        func firstSavedText(seenBy observer: LibraryStore) async throws -> Message? {
            for _ in 0..<1000 {
                let saved = try observer.messages(conversationId: conversationId).first {
                    $0.role == .assistant && !$0.text.isEmpty
                }
                if saved != nil { return saved }
                // Polling must not block a thread of the concurrency pool: the session needs it to stream.
                try await Task.sleep(for: .milliseconds(20))
            }
            return nil
        }
    }

    @Test func completeReplyIsSavedWithItsContinuation() async throws {
        let harness = try Harness(systemPrompt: "Be brief.")
        let reply = try await harness.session.send(Turn(text: "echo:Hello **there**"), in: harness.conversationId) {
            _ in
        }
        #expect(reply.status == .complete)
        let library = try harness.observer()
        let messages = try library.messages(conversationId: harness.conversationId)
        #expect(messages.map(\.role) == [.user, .assistant])
        #expect(messages[0].text == "echo:Hello **there**")
        #expect(messages[1].text == "Hello **there**")
        #expect(messages[1].status == .complete)
        #expect(messages[1].responseId?.hasPrefix("resp_") == true)
        let conversation = try #require(try library.conversation(id: harness.conversationId))
        #expect(conversation.lastResponseId == messages[1].responseId)
        #expect(conversation.serverURL == harness.fixture.url)
        #expect(conversation.title == "echo:Hello **there**")
        #expect(try library.lastReplyStatistics(conversationId: harness.conversationId)?.totalOutputTokens != nil)
        #expect(harness.fixture.requests(to: "/api/v1/chat").first?.field("system_prompt") == "Be brief.")
    }

    @Test func continuationIsSentOnlyToTheServerThatIssuedIt() async throws {
        let harness = try Harness(systemPrompt: "Be brief.")
        _ = try await harness.session.send(Turn(text: "first"), in: harness.conversationId) { _ in }
        _ = try await harness.session.send(Turn(text: "second"), in: harness.conversationId) { _ in }
        let requests = harness.fixture.requests(to: "/api/v1/chat")
        #expect(requests[1].field("previous_response_id")?.hasPrefix("resp_") == true)
        #expect(requests[1].field("system_prompt") == nil)

        try await harness.session.withLibrary { library in
            try library.setContinuation(
                conversationId: harness.conversationId, serverURL: "http://elsewhere:1234", responseId: "resp_other")
        }
        // Another server's continuation is never sent here, nor silently dropped: the user chooses a fresh context.
        await #expect(throws: TurnDecisionNeeded.self) {
            try await harness.session.send(Turn(text: "third"), in: harness.conversationId) { _ in }
        }
        _ = try await harness.session.regenerate(in: harness.conversationId, freshContext: true) { _ in }
        let third = try #require(harness.fixture.requests(to: "/api/v1/chat").last)
        #expect(third.field("previous_response_id") == nil, "another server's continuation is not sent here")
        #expect(third.field("system_prompt") == "Be brief.", "a fresh context gets the system prompt again")
    }

    @Test func partialTextIsSavedWhileTheServerIsSilent() async throws {
        let harness = try Harness()
        let send = Task {
            try await harness.session.send(
                Turn(text: "[[sim:stall=30]] echo:alpha beta gamma delta"), in: harness.conversationId
            ) { _ in }
        }
        let observer = try harness.observer()
        let saved = try await harness.firstSavedText(seenBy: observer)
        #expect(saved?.status == .streaming)
        #expect(saved?.text.hasPrefix("alpha") == true)
        send.cancel()
        let reply = try await send.value
        #expect(reply.status == .incomplete)
        let final = try observer.message(id: reply.messageId)
        #expect(final?.status == .incomplete)
        #expect(final?.text.hasPrefix("alpha") == true, "cancelling keeps the text received so far")
    }

    @Test func droppedStreamIsIncompleteWithEverythingReceived() async throws {
        let harness = try Harness()
        let updates = Mutex<[ReplyUpdate]>([])
        let reply = try await harness.session.send(
            Turn(text: "[[sim:drop-after=10]] echo:one two three four five six seven"),
            in: harness.conversationId
        ) { update in
            updates.withLock { $0.append(update) }
        }
        #expect(reply.status == .incomplete)
        #expect(!reply.state.answer.isEmpty)
        let seen = updates.withLock { $0 }
        guard case .ended(let end)? = seen.last else {
            Issue.record("the last update is not the end: \(String(describing: seen.last))")
            return
        }
        #expect(end.status == .incomplete)
        #expect(
            ReplyAccumulatorTests.replay(seen).answer == reply.state.answer, "the updates carry everything received")
        let saved = try harness.observer().message(id: reply.messageId)
        #expect(saved?.text == reply.state.answer)
    }

    @Test func aChatEndThatRewritesTheAnswerIsSavedAndPublishedAsAReplacement() async throws {
        let harness = try Harness()
        let updates = Mutex<[ReplyUpdate]>([])
        let reply = try await harness.session.send(
            Turn(text: "[[sim:rewrite]] echo:first draft"), in: harness.conversationId
        ) { update in
            updates.withLock { $0.append(update) }
        }
        #expect(reply.status == .complete)
        #expect(reply.state.answer == "Revised: first draft")
        #expect(reply.state.isRewritten)
        let seen = updates.withLock { $0 }
        #expect(seen.contains(.answerReplaced("Revised: first draft")))
        #expect(ReplyAccumulatorTests.replay(seen).answer == "Revised: first draft")
        #expect(try harness.observer().message(id: reply.messageId)?.text == "Revised: first draft")
    }

    @Test func lostContinuationLeavesNoTurnAndAFreshContextSendsIt() async throws {
        let harness = try Harness()
        _ = try await harness.session.send(Turn(text: "remember pears"), in: harness.conversationId) { _ in }
        harness.fixture.simulator.reset()
        let lost = await harness.session.submit(TurnSubmission(text: "recall please"), in: harness.conversationId) {
            _ in
        }
        guard case .needsDecision(.freshContext(.continuationLost, _), var returned) = lost else {
            Issue.record("a lost context asks for a fresh one: \(lost)")
            return
        }
        #expect(
            try harness.observer().messages(conversationId: harness.conversationId).count == 2,
            "no unanswered turn is left")
        returned.serverContext = .empty
        let retried = try #require(await harness.session.submit(returned, in: harness.conversationId) { _ in }.reply)
        #expect(retried.status == .complete)
        #expect(retried.state.answer == "Nothing earlier in this conversation.")
        #expect(try harness.observer().messages(conversationId: harness.conversationId).count == 4)
    }

    @Test func toolCallsArePersistedWithArgumentsOutputAndStatus() async throws {
        let harness = try Harness(model: "acme/toolsmith-12b")
        let reply = try await harness.session.send(Turn(text: "[[sim:tools]] look it up"), in: harness.conversationId) {
            _ in
        }
        let calls = try harness.observer().toolCalls(messageId: reply.messageId)
        #expect(calls.map(\.name) == ["search_docs", "open_browser"])
        #expect(calls[0].status == .succeeded)
        #expect(calls[0].argumentsJSON == #"{"query":"sse"}"#)
        #expect((calls[0].output?.count ?? 0) > 1000)
        #expect(calls[0].providerJSON?.contains("mcp/docs") == true)
        #expect(calls[1].status == .failed)
        #expect(calls[1].failureReason == "Cannot find tool open_browser")
    }
}
