import Chat
import Foundation
import LMStudio
import Library
import TestSupport
import Testing

/// Regenerate, edit, alternatives, fresh-context recovery and failed first sends, against the simulator.
@Suite struct BranchingTests {
    typealias Harness = ChatSessionTests.Harness

    /// Sends "echo:one" then "echo:two"; returns the two replies.
    private func twoTurns(_ harness: Harness) async throws -> (SavedReply, SavedReply) {
        let first = try await harness.session.send(Turn(text: "echo:one"), in: harness.conversationId) { _ in }
        let second = try await harness.session.send(Turn(text: "echo:two"), in: harness.conversationId) { _ in }
        return (first, second)
    }

    @Test func regenerateAsksInTheReplacedAnswersContextAndKeepsItAsAnAlternative() async throws {
        let harness = try Harness()
        let (first, second) = try await twoTurns(harness)
        let again = try await harness.session.regenerate(in: harness.conversationId) { _ in }
        #expect(again.status == .complete)

        let request = try #require(harness.fixture.requests(to: "/api/v1/chat").last)
        #expect(request.field("previous_response_id") == first.state.responseId, "the parent, not the replaced answer")
        #expect(request.field("input") == "echo:two")
        let library = try harness.observer()
        let messages = try library.messages(conversationId: harness.conversationId)
        #expect(messages.map(\.text) == ["echo:one", "one", "echo:two", "two"])
        #expect(messages.map(\.id).last == again.messageId)
        #expect(messages.filter { $0.role == .user }.count == 2, "no second copy of the question")
        let alternatives = try await harness.session.alternatives(in: harness.conversationId)
        #expect(alternatives.map(\.id) == [second.messageId, again.messageId])
        #expect(alternatives.map(\.onBranch) == [false, true])
        #expect(try library.conversation(id: harness.conversationId)?.lastResponseId == again.state.responseId)
    }

    @Test func choosingAnAlternativeContinuesFromIt() async throws {
        let harness = try Harness()
        let (_, second) = try await twoTurns(harness)
        _ = try await harness.session.regenerate(in: harness.conversationId) { _ in }
        let branch = try await harness.session.chooseAlternative(second.messageId)
        #expect(branch.last?.id == second.messageId)
        _ = try await harness.session.send(Turn(text: "echo:three"), in: harness.conversationId) { _ in }
        let request = try #require(harness.fixture.requests(to: "/api/v1/chat").last)
        #expect(request.field("previous_response_id") == second.state.responseId)
    }

    @Test func regeneratingTheFirstReplyStartsAFreshContextWithTheSystemPrompt() async throws {
        let harness = try Harness(systemPrompt: "Be brief.")
        _ = try await harness.session.send(Turn(text: "echo:hi"), in: harness.conversationId) { _ in }
        _ = try await harness.session.regenerate(in: harness.conversationId) { _ in }
        let request = try #require(harness.fixture.requests(to: "/api/v1/chat").last)
        #expect(request.field("previous_response_id") == nil)
        #expect(request.field("system_prompt") == "Be brief.")
    }

    @Test func editResendsTheChangedTurnInTheOriginalsContext() async throws {
        let harness = try Harness()
        let (first, _) = try await twoTurns(harness)
        let edited = try await harness.session.edit(in: harness.conversationId, text: "echo:deux") { _ in }
        #expect(edited.state.answer == "deux")
        let request = try #require(harness.fixture.requests(to: "/api/v1/chat").last)
        #expect(request.field("previous_response_id") == first.state.responseId)
        let library = try harness.observer()
        let messages = try library.messages(conversationId: harness.conversationId)
        #expect(messages.map(\.text) == ["echo:one", "one", "echo:deux", "deux"])
        #expect(try library.alternatives(messageId: messages[2].id).map(\.text) == ["echo:two", "echo:deux"])
    }

    @Test func afterALostContinuationRegenerateRecoversWithAFreshContext() async throws {
        let harness = try Harness()
        let (_, second) = try await twoTurns(harness)
        harness.fixture.simulator.reset()
        await #expect(throws: ChatError.continuationLost(conversationId: harness.conversationId)) {
            try await harness.session.regenerate(in: harness.conversationId) { _ in }
        }
        #expect(
            try harness.observer().messages(conversationId: harness.conversationId).last?.id == second.messageId,
            "the answer stays current when nothing reached the server")
        let fresh = try await harness.session.regenerate(in: harness.conversationId, freshContext: true) { _ in }
        #expect(fresh.status == .complete)
        #expect(harness.fixture.requests(to: "/api/v1/chat").last?.field("previous_response_id") == nil)
        #expect(try await harness.session.alternatives(in: harness.conversationId).count == 2)
    }

    @Test func afterALostContinuationAFailedEditLeavesTheOriginalAndAFreshContextSendsTheEdit() async throws {
        let harness = try Harness()
        _ = try await twoTurns(harness)
        harness.fixture.simulator.reset()
        await #expect(throws: ChatError.continuationLost(conversationId: harness.conversationId)) {
            try await harness.session.edit(in: harness.conversationId, text: "echo:zwei") { _ in }
        }
        #expect(
            try harness.observer().messages(conversationId: harness.conversationId).map(\.text) == [
                "echo:one", "one", "echo:two", "two"
            ],
            "the original turn and its answer are current again")
        let recovered = try await harness.session.edit(
            in: harness.conversationId, text: "echo:zwei", freshContext: true
        ) { _ in }
        #expect(recovered.state.answer == "zwei", "the edited turn is the one sent")
    }

    @Test(arguments: ["no model", "HTTP error"])
    func aFirstSendThatFailsBeforeTheServerAcceptedItLeavesNoConversation(failure: String) async throws {
        let harness = try Harness(model: failure == "no model" ? "acme/not-there" : "acme/tiny-1b")
        await #expect(throws: ChatError.self) {
            try await harness.session.send(
                Turn(text: "[[sim:status=500]] hello"), in: harness.conversationId,
                opened: try harness.openedForTurn()
            ) { _ in }
        }
        let library = try harness.observer()
        #expect(try library.conversation(id: harness.conversationId) == nil)
        #expect(try library.conversations().isEmpty)
    }

    @Test func aConversationMadeOnPurposeOutlivesAFailedFirstSend() async throws {
        let harness = try Harness()
        await #expect(throws: ChatError.self) {
            try await harness.session.send(Turn(text: "[[sim:status=500]] hello"), in: harness.conversationId) { _ in }
        }
        #expect(try harness.observer().conversation(id: harness.conversationId) != nil)
    }

    @Test func aLaterSendThatFailsKeepsTheConversationButLeavesNoUnansweredTurn() async throws {
        let harness = try Harness()
        _ = try await harness.session.send(Turn(text: "echo:one"), in: harness.conversationId) { _ in }
        await #expect(throws: ChatError.self) {
            try await harness.session.send(Turn(text: "[[sim:status=500]] hello"), in: harness.conversationId) { _ in }
        }
        #expect(
            try harness.observer().messages(conversationId: harness.conversationId).map(\.text) == ["echo:one", "one"])
        let next = try await harness.session.send(Turn(text: "echo:two"), in: harness.conversationId) { _ in }
        #expect(next.status == .complete)
        #expect(
            harness.fixture.requests(to: "/api/v1/chat").last?.field("previous_response_id")?.hasPrefix("resp_")
                == true,
            "the conversation continues from its last answer")
    }
}
