import Chat
import LMStudio
import Library
import TestSupport
import Testing

/// The rules every face shares when it opens a conversation or names a model: a preset on a new conversation,
/// the closest titles for an unknown conversation, the nearest key for a model the server lacks.
@Suite struct OpeningUseCaseTests {
    typealias Harness = ChatSessionTests.Harness

    private static func withReviewer(_ configuration: inout Configuration) {
        configuration.presets["reviewer"] = Preset(
            name: "reviewer", systemPrompt: "You review diffs tersely.",
            model: "acme/thinker-8b", settings: ["temperature": "0.2", "reasoning": "low"])
    }

    /// Only a conversation with nothing in it — no title, message or draft — is removed when a face leaves it.
    @Test func onlyAnEmptyUntitledConversationWithoutADraftIsDiscarded() async throws {
        let harness = try Harness()
        let session = harness.session
        let empty = try await session.openConversation(.new).conversation.id
        let titled = try await session.openConversation(.new, overrides: ConversationOverrides(title: "Plans"))
            .conversation.id
        let drafted = try await session.openConversation(.new).conversation.id
        try await session.withLibrary { try $0.setDraft(conversationId: drafted, text: "half a thought") }
        #expect(try await session.discardIfEmpty(empty))
        #expect(try await !session.discardIfEmpty(titled))
        #expect(try await !session.discardIfEmpty(drafted))
        let remaining = Set(try harness.observer().conversations().map(\.id))
        #expect(remaining.isSuperset(of: [titled, drafted]) && !remaining.contains(empty))
    }

    @Test func aPresetGivesANewConversationItsValuesAndExplicitOverridesWin() async throws {
        let harness = try Harness(configure: Self.withReviewer)
        let preset = try await harness.session.openConversation(
            .new, overrides: ConversationOverrides(preset: "reviewer"))
        #expect(preset.conversation.modelKey == "acme/thinker-8b")
        #expect(preset.conversation.systemPrompt == "You review diffs tersely.")
        #expect(preset.conversation.settings.temperature == 0.2)
        #expect(preset.conversation.settings.reasoning == "low")
        #expect(preset.systemPrompt == .nextRequest)

        let explicit = try await harness.session.openConversation(
            .new,
            overrides: ConversationOverrides(
                model: "acme/thinker-8b", systemPrompt: "Be kind.", reasoning: "high", preset: "reviewer"))
        let saved = try #require(try harness.observer().conversation(id: explicit.conversation.id))
        #expect(saved.systemPrompt == "Be kind.")
        #expect(saved.settings.reasoning == "high", "the reasoning override wins over the preset's")
        #expect(saved.settings.temperature == 0.2, "what the overrides do not name still comes from the preset")

        let before = try harness.observer().conversations().count
        await #expect(
            throws: ChatError.invalidSetting(.reasoningNotOffered(model: "acme/tiny-1b", allowed: [])),
            "the preset's settings are checked against the model that wins"
        ) {
            try await harness.session.openConversation(
                .new, overrides: ConversationOverrides(model: "acme/tiny-1b", preset: "reviewer"))
        }
        #expect(try harness.observer().conversations().count == before)
    }

    @Test func anUnknownPresetOrARefusedPresetSettingCreatesNothing() async throws {
        let harness = try Harness(configure: { configuration in
            Self.withReviewer(&configuration)
            configuration.presets["hot"] = Preset(name: "hot", systemPrompt: "Burn.", settings: ["temperature": "5"])
        })
        await #expect(throws: ChatError.unknownPreset("nosuch", configured: ["hot", "reviewer"])) {
            try await harness.session.openConversation(
                .new, overrides: ConversationOverrides(title: "Doomed", preset: "nosuch"))
        }
        await #expect(throws: ChatError.invalidSetting(.outOfRange("temperature", 0...1))) {
            try await harness.session.openConversation(
                .new, overrides: ConversationOverrides(title: "Doomed", preset: "hot"))
        }
        #expect(try harness.observer().conversations().map(\.id) == [harness.conversationId], "nothing is created")
        await #expect(throws: ChatError.invalidSetting(.outOfRange("temperature", 0...1))) {
            try await harness.session.applyPreset("hot", conversationId: harness.conversationId)
        }
        #expect(
            try harness.observer().conversation(id: harness.conversationId)?.systemPrompt == nil,
            "a refused preset changes nothing on an existing conversation either")
    }

    @Test func anUnknownConversationListsTheClosestTitles() async throws {
        let harness = try Harness()
        let library = try harness.observer()
        let sse = try library.createConversation(title: "Explain SSE")
        _ = try library.createConversation(title: "Rust lifetimes")
        let expected = ChatError.unknownConversation(
            reference: "Explain SEE", closest: [ConversationCandidate(id: sse.id, title: "Explain SSE")])
        await #expect(throws: expected) { try await harness.session.resolveConversation("Explain SEE") }
        await #expect(throws: expected) { try await harness.session.openConversation(.named("Explain SEE")) }
        #expect(expected.description.contains("close ones:\n  \(sse.id.prefix(8))  Explain SSE"))
        #expect(try await harness.session.resolveConversation("explain sse").id == sse.id)
    }

    @Test func aModelTheServerLacksSuggestsTheNearestKey() async throws {
        let harness = try Harness(model: "acme/thinekr-8b")
        let nearest = ChatError.modelNotDownloaded("acme/thinekr-8b", suggestion: "acme/thinker-8b")
        await #expect(throws: nearest) {
            try await harness.session.selectModel("acme/thinekr-8b", conversationId: harness.conversationId)
        }
        await #expect(throws: nearest, "sending names the same key") {
            try await harness.session.send(Turn(text: "echo:hi"), in: harness.conversationId) { _ in }
        }
        #expect(nearest.description.contains("did you mean acme/thinker-8b?"))
        let models = try await harness.session.models()
        #expect(models.notDownloaded("zzz/nothing-alike") == .modelNotDownloaded("zzz/nothing-alike", suggestion: nil))
        #expect(try models.downloadedModel("acme/tiny-1b").key == "acme/tiny-1b")
    }
}
