import Chat
import Foundation
import HTTP
import LMStudio
import Library
import Synchronization
import TestSupport
import Testing

/// `ChatSession.submit`, the turn every face sends through: one outcome, and nothing typed is lost or left unanswered.
@Suite struct TurnTests {
    typealias Harness = ChatSessionTests.Harness

    /// The server's loaded instances, by id.
    static func loadedInstances(_ harness: Harness) async throws -> [String] {
        let client = LMStudioClient(server: harness.fixture.url, token: nil, transport: CurlTransport())
        return try await client.models().flatMap { $0.loadedInstances.map(\.id) }.sorted()
    }

    @Test func aSendThatFailsBeforeAnyReplyHandsTheTurnBackAndSavesNothing() async throws {
        let harness = try Harness()
        _ = try await harness.session.send(Turn(text: "echo:one"), in: harness.conversationId) { _ in }
        let item = ContextItem(name: "notes.md", source: .file, text: "a note")
        let submission = TurnSubmission(text: "[[sim:status=500]] RECALL", context: [item])
        let outcome = await harness.session.submit(submission, in: harness.conversationId) { _ in }
        guard case .failed(_, let returned) = outcome else {
            Issue.record("a server error before any reply is a failure: \(outcome)")
            return
        }
        #expect(returned == submission, "the text and its items come back as typed")
        #expect(
            try harness.observer().messages(conversationId: harness.conversationId).map(\.text) == ["echo:one", "one"],
            "no unanswered turn is left in the library")
    }

    @Test func aRefusedTurnComesBackWithItsImages() async throws {
        let harness = try Harness()
        let image = ImageInput(name: "red.png", mimeType: "image/png", bytes: [0x89, 0x50, 0x4E, 0x47])
        let outcome = await harness.session.submit(
            TurnSubmission(text: "echo:look", images: [image]), in: harness.conversationId
        ) { _ in }
        guard case .refused(let error, let returned) = outcome else {
            Issue.record("a model without vision refuses an image: \(outcome)")
            return
        }
        #expect(error as? ChatError == .visionUnsupported("acme/tiny-1b"))
        #expect(returned.images == [image] && returned.text == "echo:look")
        #expect(try harness.observer().messages(conversationId: harness.conversationId).isEmpty)
        #expect(harness.fixture.requests(to: "/api/v1/chat").isEmpty)
    }

    @Test func aConversationMadeForTheTurnGoesWithATurnNotSent() async throws {
        let harness = try Harness()
        let outcome = await harness.session.submit(
            TurnSubmission(text: "[[sim:status=500]] hi"), in: harness.conversationId,
            opened: try harness.openedForTurn()
        ) { _ in }
        #expect(outcome.returned?.text == "[[sim:status=500]] hi")
        #expect(try harness.observer().conversation(id: harness.conversationId) == nil)
    }

    /// `ask -c CHAT -m TYPO` or rpc's `model`: the overrides a turn came with go when the turn is not sent, so a
    /// refused model (or a failed send) leaves the conversation's model, prompt and settings as they were.
    @Test func theOverridesOfATurnNotSentArePutBack() async throws {
        let harness = try Harness()
        _ = try await harness.session.send(Turn(text: "echo:one"), in: harness.conversationId) { _ in }
        let before = try #require(try harness.observer().conversation(id: harness.conversationId))
        for (model, text) in [("acme/no-such-model", "echo:two"), ("acme/thinker-8b", "[[sim:status=500]] echo:two")] {
            let opened = try await harness.session.openConversation(
                .named(harness.conversationId),
                overrides: ConversationOverrides(model: model, systemPrompt: "Answer in French."))
            #expect(opened.previous?.modelKey == before.modelKey)
            let outcome = await harness.session.submit(
                TurnSubmission(text: text), in: harness.conversationId, opened: opened
            ) { _ in }
            #expect(outcome.reply == nil, "\(model): \(outcome)")
            let after = try #require(try harness.observer().conversation(id: harness.conversationId))
            #expect(after.modelKey == before.modelKey, "\(model)")
            #expect(after.systemPrompt == before.systemPrompt && after.settings == before.settings, "\(model)")
            #expect(after.needsFreshContext == before.needsFreshContext, "\(model)")
        }
        // A turn refused because another process is writing the conversation puts them back too.
        do {
            let lock = try harness.observer().lockForWriting(conversationId: harness.conversationId)
            let busy = try await harness.session.openConversation(
                .named(harness.conversationId), overrides: ConversationOverrides(model: "acme/thinker-8b"))
            let refused = await harness.session.submit(
                TurnSubmission(text: "echo:two"), in: harness.conversationId, opened: busy
            ) { _ in }
            withExtendedLifetime(lock) {}
            #expect(refused.reply == nil, "\(refused)")
        }
        #expect(try harness.observer().conversation(id: harness.conversationId)?.modelKey == before.modelKey)
        // What changed since the overrides were saved stays: here another send's model, saved after them.
        let first = try await harness.session.openConversation(
            .named(harness.conversationId), overrides: ConversationOverrides(model: "acme/thinker-8b"))
        _ = try await harness.session.openConversation(
            .named(harness.conversationId), overrides: ConversationOverrides(model: "acme/vision-7b"))
        let failed = await harness.session.submit(
            TurnSubmission(text: "[[sim:status=500]] echo:two"), in: harness.conversationId, opened: first
        ) { _ in }
        #expect(failed.reply == nil)
        #expect(try harness.observer().conversation(id: harness.conversationId)?.modelKey == "acme/vision-7b")
        // A turn that is sent keeps them.
        let opened = try await harness.session.openConversation(
            .named(harness.conversationId), overrides: ConversationOverrides(model: "acme/thinker-8b"))
        let outcome = await harness.session.submit(
            TurnSubmission(text: "echo:three"), in: harness.conversationId, opened: opened
        ) { _ in }
        #expect(outcome.reply?.status == .complete)
        #expect(try harness.observer().conversation(id: harness.conversationId)?.modelKey == "acme/thinker-8b")
    }

    /// A retry or an edit of the first turn that nothing answered leaves the server context as it was: the next turn
    /// continues it (it was left without its server, held "elsewhere", and the next send asked for a fresh context).
    @Test func aFailedRetryOrEditOfTheFirstTurnKeepsTheServerContext() async throws {
        let harness = try Harness()
        _ = try await harness.session.send(Turn(text: "echo:one"), in: harness.conversationId) { _ in }
        let before = try #require(try harness.observer().conversation(id: harness.conversationId))
        #expect(before.serverURL != nil && before.lastResponseId != nil)
        let edit = await harness.session.submit(
            .edit(TurnSubmission(text: "[[sim:status=500]] echo:edited").message), in: harness.conversationId
        ) { _ in }
        #expect(edit.reply == nil, "\(edit)")
        let opened = try await harness.session.openConversation(
            .named(harness.conversationId), overrides: ConversationOverrides(model: "acme/no-such-model"))
        let retry = await harness.session.submit(.retry(), in: harness.conversationId, opened: opened) {
            _ in
        }
        #expect(retry.reply == nil, "\(retry)")
        let after = try #require(try harness.observer().conversation(id: harness.conversationId))
        #expect(after.serverURL == before.serverURL && after.lastResponseId == before.lastResponseId)
        let next = await harness.session.submit(TurnSubmission(text: "echo:two"), in: harness.conversationId) { _ in }
        #expect(next.reply?.status == .complete, "\(next)")
        let request = try #require(harness.fixture.requests(to: "/api/v1/chat").last)
        #expect(request.field("previous_response_id") == before.lastResponseId)
    }

    /// A fresh-context send that fails keeps the context the conversation had, also when the send is the one that
    /// first records the conversation's model (it saved the conversation with the continuation already dropped).
    @Test func aFailedFreshContextSendKeepsTheServerContext() async throws {
        let harness = try Harness()
        _ = try await harness.session.send(Turn(text: "echo:one"), in: harness.conversationId) { _ in }
        var conversation = try #require(try harness.observer().conversation(id: harness.conversationId))
        conversation.modelKey = nil
        try harness.observer().updateConversation(conversation)
        var submission = TurnSubmission(text: "[[sim:status=500]] echo:two")
        submission.serverContext = .empty
        let outcome = await harness.session.submit(submission, in: harness.conversationId) { _ in }
        #expect(outcome.reply == nil, "\(outcome)")
        let after = try #require(try harness.observer().conversation(id: harness.conversationId))
        #expect(after.lastResponseId == conversation.lastResponseId && after.serverURL == conversation.serverURL)
        #expect(after.modelKey == "acme/tiny-1b", "the model it was asked of is recorded")
    }

    /// Older versions left a failed send's message unanswered; sending the same text again answers it, once.
    @Test func resendingAnUnansweredTurnAnswersItInsteadOfRepeatingIt() async throws {
        let harness = try Harness()
        _ = try await harness.session.send(Turn(text: "echo:one"), in: harness.conversationId) { _ in }
        try harness.observer().appendMessage(
            conversationId: harness.conversationId, role: .user, MessageContent(text: "echo:again"))
        let outcome = await harness.session.submit(TurnSubmission(text: "echo:again"), in: harness.conversationId) {
            _ in
        }
        #expect(outcome.reply?.status == .complete)
        #expect(
            try harness.observer().messages(conversationId: harness.conversationId).map(\.text) == [
                "echo:one", "one", "echo:again", "again"
            ])
    }

    @Test func aChangedSystemPromptAsksForAFreshContextUnlessTheFaceKeepsIt() async throws {
        let harness = try Harness()
        _ = try await harness.session.send(Turn(text: "echo:one"), in: harness.conversationId) { _ in }
        _ = try await harness.session.setSystemPrompt("Be brief.", conversationId: harness.conversationId)
        let asked = await harness.session.submit(TurnSubmission(text: "echo:two"), in: harness.conversationId) { _ in }
        guard case .needsDecision(.freshContext(.systemPromptChanged, _), var returned) = asked else {
            Issue.record("a changed prompt needs a fresh context: \(asked)")
            return
        }
        returned.serverContext = .keep
        #expect(await harness.session.submit(returned, in: harness.conversationId) { _ in }.reply?.status == .complete)
        let request = try #require(harness.fixture.requests(to: "/api/v1/chat").last)
        #expect(
            request.field("previous_response_id") != nil && request.field("system_prompt") == nil, "the context is kept"
        )
        returned.text = "echo:three"
        returned.serverContext = .empty
        #expect(await harness.session.submit(returned, in: harness.conversationId) { _ in }.reply?.status == .complete)
        let fresh = try #require(harness.fixture.requests(to: "/api/v1/chat").last)
        #expect(fresh.field("previous_response_id") == nil && fresh.field("system_prompt") == "Be brief.")
    }

    @Test func aTemplateIsFilledAndTheFilledTextIsSaved() async throws {
        let harness = try Harness()
        var preset = Preset(name: "review")
        preset.template = "echo:Review: {{input}}"
        let outcome = await harness.session.submit(
            TurnSubmission(text: "this diff", template: preset), in: harness.conversationId
        ) { _ in }
        #expect(outcome.reply?.state.answer == "Review: this diff")
        #expect(
            try harness.observer().messages(conversationId: harness.conversationId).first?.text
                == "echo:Review: this diff")
    }

    /// The load policy in the engine: a turn to a model that is not loaded loads it and unloads the previous chat model.
    @Test func aTurnLoadsItsModelAndUnloadsThePreviousOne() async throws {
        let harness = try Harness(model: "acme/thinker-8b")
        #expect(try await Self.loadedInstances(harness) == ["acme/tiny-1b"])
        let steps = Mutex<[TurnStep]>([])
        let outcome = await harness.session.submit(
            TurnSubmission(text: "echo:hi"), in: harness.conversationId,
            progress: { step in steps.withLock { $0.append(step) } }
        ) { _ in }
        #expect(outcome.reply?.status == .complete)
        #expect(try await Self.loadedInstances(harness) == ["acme/thinker-8b"])
        #expect(steps.withLock { $0 }.first == .model(.unloaded("acme/tiny-1b")))
    }

    /// A retry goes through the same turn: another client left a different model loaded, and the retry loads the
    /// conversation's own again under the policy instead of letting the server load it beside the other.
    @Test func aRetryLoadsItsModelUnderThePolicy() async throws {
        let harness = try Harness(model: "acme/thinker-8b")
        #expect(
            await harness.session.submit(TurnSubmission(text: "echo:hi"), in: harness.conversationId) { _ in }.reply
                != nil)
        let other = LMStudioClient(server: harness.fixture.url, token: nil, transport: CurlTransport())
        _ = try await other.load(LoadRequest(model: "acme/tiny-1b"))
        try await other.unload(instanceId: "acme/thinker-8b")
        let outcome = await harness.session.submit(.retry(), in: harness.conversationId) { _ in }
        #expect(outcome.reply?.status == .complete)
        #expect(try await Self.loadedInstances(harness) == ["acme/thinker-8b"])
        #expect(try await harness.session.alternatives(in: harness.conversationId).count == 2)
    }

    /// A retry or an edit in a context the server lost raises the same decision as a message, and comes back as what
    /// it was, so the face can send it again in a fresh context.
    @Test(arguments: [TurnSubmission.retry(), .edit("echo:three")])
    func aResendInALostContextAsksForAFreshOne(_ submission: TurnSubmission) async throws {
        let harness = try Harness()
        for text in ["echo:one", "echo:two"] {
            _ = try await harness.session.send(Turn(text: text), in: harness.conversationId) { _ in }
        }
        harness.fixture.simulator.reset()
        let outcome = await harness.session.submit(submission, in: harness.conversationId) { _ in }
        guard case .needsDecision(.freshContext(.continuationLost, let recap?), let returned) = outcome else {
            Issue.record("a lost context is a decision: \(outcome)")
            return
        }
        #expect(returned == submission)
        #expect(
            recap.transcriptTokens < ContextMeter.estimateTokens("User: echo:one\n\nAssistant: one\n\nUser: echo:two"),
            "the recap leaves out the turn sent again")
        var again = returned
        again.serverContext = .empty
        let reply = try #require(await harness.session.submit(again, in: harness.conversationId) { _ in }.reply)
        #expect(reply.startedFreshContext && reply.status == .complete)
        #expect(
            try harness.observer().messages(conversationId: harness.conversationId).map(\.text).suffix(2)
                == (submission.kind == .retry ? ["echo:two", "two"] : ["echo:three", "three"]))
    }

    @Test func keepPreviousModelsKeepsThePreviousOneLoaded() async throws {
        let harness = try Harness(configure: { $0.keepPreviousModels = true }, model: "acme/thinker-8b")
        #expect(
            await harness.session.submit(TurnSubmission(text: "echo:hi"), in: harness.conversationId) { _ in }.reply
                != nil)
        #expect(try await Self.loadedInstances(harness) == ["acme/thinker-8b", "acme/tiny-1b"])
    }

    /// The turn is saved only once the server accepted the request: a failed send leaves the conversation as it was —
    /// no title taken from the unsent text, and a fresh context asked for keeps the old one until a request starts it.
    @Test func aFailedSendChangesNothingInTheConversation() async throws {
        let harness = try Harness()
        let untitled = try #require(try harness.observer().conversation(id: harness.conversationId))
        _ = await harness.session.submit(
            TurnSubmission(text: "[[sim:status=500]] secret plans"), in: harness.conversationId
        ) { _ in }
        #expect(
            try harness.observer().conversation(id: harness.conversationId)?.title == untitled.title,
            "not titled by the unsent text")

        _ = try await harness.session.send(Turn(text: "echo:one"), in: harness.conversationId) { _ in }
        let before = try #require(try harness.observer().conversation(id: harness.conversationId))
        let failed = await harness.session.submit(
            TurnSubmission(text: "[[sim:status=500]] again", serverContext: .empty),
            in: harness.conversationId
        ) { _ in }
        #expect(failed.returned != nil)
        let after = try #require(try harness.observer().conversation(id: harness.conversationId))
        #expect(after.lastResponseId == before.lastResponseId && after.lastResponseId != nil, "the context is kept")
        #expect(
            try harness.observer().messages(conversationId: harness.conversationId).map(\.text) == ["echo:one", "one"])
    }

    /// A send queued behind a reply to the same conversation can be cancelled while it waits: it leaves the queue at
    /// once, saves nothing, and the reply before it goes on.
    @Test func aQueuedSendCancelledWhileWaitingLeavesTheQueue() async throws {
        let harness = try Harness()
        let session = harness.session
        let id = harness.conversationId
        let streaming = Task {
            await session.submit(TurnSubmission(text: "[[sim:stall=30]] echo:alpha beta gamma delta"), in: id) { _ in }
        }
        let observer = try harness.observer()
        for _ in 0..<1000 where try observer.messages(conversationId: id).isEmpty {
            try await Task.sleep(for: .milliseconds(20))
        }
        let queued = Task { await session.submit(TurnSubmission(text: "echo:queued"), in: id) { _ in } }
        queued.cancel()
        let outcome = await queued.value
        #expect(outcome.returned?.text == "echo:queued", "handed back: \(outcome)")
        #expect(try observer.messages(conversationId: id).allSatisfy { $0.text != "echo:queued" })
        streaming.cancel()
        #expect(await streaming.value.reply?.wasCancelled == true)
        #expect(
            await session.submit(TurnSubmission(text: "echo:after"), in: id) { _ in }.reply?.status == .complete,
            "the writer turn was handed on")
    }

    /// A failed edit brings back the reply that was shown, not the newest one.
    @Test func aFailedEditKeepsTheChosenAlternative() async throws {
        let harness = try Harness()
        _ = try await harness.session.send(Turn(text: "echo:one"), in: harness.conversationId) { _ in }
        let shown = try await harness.session.send(Turn(text: "echo:two"), in: harness.conversationId) { _ in }
        _ = try await harness.session.regenerate(in: harness.conversationId) { _ in }
        try await harness.session.chooseAlternative(shown.messageId)
        // The server forgot the context the edit is asked in: the edit fails before any reply.
        harness.fixture.simulator.reset()
        await #expect(throws: ChatError.continuationLost(conversationId: harness.conversationId)) {
            try await harness.session.edit(in: harness.conversationId, text: "echo:zwei") { _ in }
        }
        #expect(
            try harness.observer().messages(conversationId: harness.conversationId).map(\.id).last == shown.messageId)
    }
}
