import Chat
import Foundation
import HTTP
import LMStudio
import Library
import Simulator
import TestSupport
import Testing

/// A turn that would fill the loaded context: offered once, with its figures, a larger context, a recap or sending
/// anyway; and an empty reply whose prompt filled the context explained as that.
@Suite struct ContextGrowthTests {
    typealias Harness = ChatSessionTests.Harness

    /// About `tokens` tokens of text (four characters a token, as both the meter and the simulator count).
    static func text(tokens: Int) -> String { "echo:" + String(repeating: "word ", count: tokens * 4 / 5) }

    /// The loaded instances of `key` with their context lengths.
    static func contexts(_ harness: Harness, of key: String = "acme/tiny-1b") async throws -> [Int?] {
        let client = LMStudioClient(server: harness.fixture.url, token: nil, transport: CurlTransport())
        return try await client.models().first { $0.key == key }?.loadedInstances.map(\.config.contextLength) ?? []
    }

    @Test func aTurnPastTheWarningShareIsOfferedALargerContextARecapOrSending() async throws {
        let harness = try Harness()
        _ = try await harness.session.send(Turn(text: "echo:one"), in: harness.conversationId) { _ in }
        let outcome = await harness.session.submit(
            TurnSubmission(text: Self.text(tokens: 3_800)), in: harness.conversationId
        ) { _ in }
        guard case .needsDecision(.overflow(let overflow), _) = outcome else {
            Issue.record("3,800 tokens in a 4,096-token context are past 90 %: \(outcome)")
            return
        }
        #expect(overflow.growTo == 8192, "the smallest power of two the turn fills to at most 90 %")
        #expect(
            overflow.model == "acme/tiny-1b" && !overflow.exceeds && overflow.label.hasSuffix("/4k 93%"), "\(overflow)")
        #expect(overflow.choices == [.grow, .recap, .send])
        #expect(harness.fixture.requests(to: "/api/v1/chat").count == 1, "nothing was sent")
        #expect(try harness.observer().messages(conversationId: harness.conversationId).count == 2, "nothing was saved")
    }

    /// Growing reloads the model with the larger context, the old instance unloaded, and continues the conversation by
    /// its `previous_response_id`, which the server still knows.
    @Test func growingReloadsTheModelAndContinuesTheSameServerContext() async throws {
        let harness = try Harness()
        _ = try await harness.session.send(Turn(text: "echo:one"), in: harness.conversationId) { _ in }
        var submission = TurnSubmission(text: Self.text(tokens: 3_800))
        submission.overflowChoice = .grow
        let reply = try #require(await harness.session.submit(submission, in: harness.conversationId) { _ in }.reply)
        #expect(reply.status == .complete && !reply.startedFreshContext)
        #expect(try await Self.contexts(harness) == [8192], "one instance, with the larger context")
        let request = try #require(harness.fixture.requests(to: "/api/v1/chat").last)
        #expect(request.field("previous_response_id")?.hasPrefix("resp_") == true, "the same server context goes on")
        let load = try #require(harness.fixture.requests(to: "/api/v1/models/load").last)
        #expect(load.body.contains("\"context_length\":8192"), "\(load.body)")
        #expect(
            try harness.observer().conversation(id: harness.conversationId)?.settings.contextLength == 8192,
            "later loads keep the larger context")
    }

    /// `keep_previous_models` is about switching models: the grown instance replaces the small one, which would
    /// otherwise go on serving the conversation and ask to grow again.
    @Test func growingReplacesTheInstanceEvenWhenPreviousModelsAreKept() async throws {
        let harness = try Harness(configure: { $0.keepPreviousModels = true })
        _ = try await harness.session.send(Turn(text: "echo:one"), in: harness.conversationId) { _ in }
        var submission = TurnSubmission(text: Self.text(tokens: 3_800))
        submission.overflowChoice = .grow
        #expect(
            await harness.session.submit(submission, in: harness.conversationId) { _ in }.reply?.status == .complete)
        #expect(try await Self.contexts(harness) == [8192])
    }

    /// A server that forgets its stored responses on a reload: the grown conversation goes on with a recap instead.
    @Test func growingOnAServerThatForgotTheContextGoesOnWithARecap() async throws {
        var options = SimulatorOptions()
        options.loadForgetsResponses = true
        let harness = try Harness(simulator: options)
        _ = try await harness.session.send(Turn(text: "echo:remember blue"), in: harness.conversationId) { _ in }
        var submission = TurnSubmission(text: Self.text(tokens: 3_800))
        submission.overflowChoice = .grow
        let reply = try #require(await harness.session.submit(submission, in: harness.conversationId) { _ in }.reply)
        #expect(reply.status == .complete && reply.startedFreshContext)
        let request = try #require(harness.fixture.requests(to: "/api/v1/chat").last)
        #expect(request.field("previous_response_id") == nil)
        #expect(
            request.field("input")?.hasPrefix("[llmster recap") == true
                && request.field("input")?.contains("remember blue") == true)
        #expect(
            try harness.observer().messages(conversationId: harness.conversationId).filter { $0.role == .user }.count
                == 2,
            "the turn is saved once")
    }

    @Test func aRecapChoiceStartsAFreshContextWithTheEarlierTurns() async throws {
        let harness = try Harness()
        _ = try await harness.session.send(Turn(text: "echo:remember blue"), in: harness.conversationId) { _ in }
        var submission = TurnSubmission(text: Self.text(tokens: 3_800))
        submission.overflowChoice = .recap
        let reply = try #require(await harness.session.submit(submission, in: harness.conversationId) { _ in }.reply)
        #expect(reply.startedFreshContext)
        let request = try #require(harness.fixture.requests(to: "/api/v1/chat").last)
        #expect(
            request.field("previous_response_id") == nil && request.field("input")?.hasPrefix("[llmster recap") == true)
        #expect(try await Self.contexts(harness) == [4096], "no reload")
    }

    /// GGUF models were seen to answer a prompt longer than the context with an empty reply (lmstudio-bug-tracker#2339).
    @Test func anEmptyReplyWhosePromptFilledTheContextIsExplainedAsAnOverflow() async throws {
        let harness = try Harness()
        var submission = TurnSubmission(text: "[[sim:overflow-empty]] " + Self.text(tokens: 5_000))
        submission.overflowChoice = .send
        let reply = try #require(await harness.session.submit(submission, in: harness.conversationId) { _ in }.reply)
        #expect(reply.status == .incomplete)
        #expect(
            reply.errorMessage?.hasPrefix(
                "The reply is empty: the prompt filled the model's context (4,096 of 4,096 tokens)") == true,
            "\(String(describing: reply.errorMessage))")
    }

    /// An edit is sent in the context before the turn it replaces: a long last turn does not count against its edit.
    @Test func anEditIsMeasuredAgainstTheContextBeforeTheTurnItReplaces() async throws {
        let harness = try Harness()
        _ = try await harness.session.send(Turn(text: "echo:one"), in: harness.conversationId) { _ in }
        _ = try await harness.session.send(Turn(text: Self.text(tokens: 1_500)), in: harness.conversationId) { _ in }
        let outcome = await harness.session.submit(.edit(Self.text(tokens: 1_500)), in: harness.conversationId) { _ in }
        #expect(outcome.reply?.status == .complete, "the edit fits the context it is sent in: \(outcome)")
    }

    /// An edit keeps the context items of the turn it replaces and sends them again: they count against the context,
    /// so a short new text over a large file is offered a larger context like any turn that would fill it.
    @Test func anEditCountsTheItemsItSendsAgain() async throws {
        let harness = try Harness()
        _ = try await harness.session.send(Turn(text: "echo:one"), in: harness.conversationId) { _ in }
        let file = ContextItem(name: "big.txt", source: .file, text: String(repeating: "word ", count: 3_800 * 4 / 5))
        var withFile = TurnSubmission(text: "echo:two", context: [file])
        withFile.overflowChoice = .send
        let first = await harness.session.submit(withFile, in: harness.conversationId) { _ in }
        #expect(first.reply?.status == .complete, "\(first)")
        let outcome = await harness.session.submit(.edit("echo:short"), in: harness.conversationId) { _ in }
        guard case .needsDecision(.overflow(let overflow), _) = outcome else {
            Issue.record("the file sent again fills the 4,096-token context past 90 %: \(outcome)")
            return
        }
        #expect(overflow.items.isEmpty, "no item waits to be dropped: the file goes with the edited turn")
    }

    @Test func theGrownContextIsAPowerOfTwoWithinTheModelsMaximum() {
        #expect(ChatSession.grownContext(for: 3_800, current: 4_096, maximum: 32_768, percent: 90) == 8_192)
        #expect(ChatSession.grownContext(for: 30_000, current: 4_096, maximum: 32_768, percent: 90) == 32_768)
        #expect(ChatSession.grownContext(for: 3_800, current: 32_768, maximum: 32_768, percent: 90) == nil)
        #expect(ChatSession.grownContext(for: 3_800, current: 4_096, maximum: nil, percent: 90) == nil)
        #expect(
            ChatSession.grownContext(for: 75_000, current: 4_096, maximum: 32_768, percent: 90) == nil,
            "no size holds it")
    }
}
