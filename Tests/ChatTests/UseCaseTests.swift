import Chat
import Foundation
import HTTP
import LMStudio
import Library
import Synchronization
import TestSupport
import Testing

/// The application layer (`ChatSession`'s use cases) against the simulator over loopback and a real library file.
@Suite struct UseCaseTests {
    typealias Harness = ChatSessionTests.Harness

    @Test func aConversationOnASecondInstanceIsLoadedAndMetersThatInstance() async throws {
        let harness = try Harness()
        let second = try await harness.session.loadModel("acme/tiny-1b", conversationId: nil)
        #expect(second.instanceId == "acme/tiny-1b:2")
        try await harness.session.withLibrary { library in
            var conversation = try #require(try library.conversation(id: harness.conversationId))
            conversation.modelKey = "acme/tiny-1b:2"
            try library.updateConversation(conversation)
        }
        let effective = try #require(
            try await harness.session.effectiveModel(conversationId: harness.conversationId, refresh: true))
        #expect(effective.state == .loaded)
        #expect(effective.instance?.id == "acme/tiny-1b:2")
        #expect(effective.key == "acme/tiny-1b")
        let reply = try await harness.session.send(Turn(text: "echo:on the second"), in: harness.conversationId) { _ in
        }
        #expect(reply.status == .complete, "a conversation on an instance id can send")
        #expect(
            harness.fixture.requests(to: "/api/v1/chat").last?.field("model") == "acme/tiny-1b:2",
            "the request names the instance the conversation chose")
    }

    @Test func theRuleFallsBackToThePendingChoiceTheDefaultAndTheLoadedModel() async throws {
        let harness = try Harness(configure: { $0.defaultModel = "acme/vision-7b" })
        let pending = try #require(
            try await harness.session.effectiveModel(conversationId: nil, pending: "acme/thinker-8b"))
        #expect(pending.reference == "acme/thinker-8b")
        #expect(pending.state == .notLoaded)
        #expect(try await harness.session.effectiveModel(conversationId: nil)?.reference == "acme/vision-7b")
        #expect(
            try await harness.session.effectiveModel(conversationId: nil, pending: "nobody/nothing")?.state
                == .notDownloaded)
        let loadedOnly = EffectiveModel.resolve(
            conversation: nil, pending: nil, defaultModel: nil,
            models: try await harness.session.models(refresh: true))
        #expect(loadedOnly?.reference == "acme/tiny-1b")
        #expect(
            EffectiveModel.resolve(conversation: nil, pending: "x", defaultModel: nil, models: nil)?.state
                == .serverUnreachable)
    }

    @Test func selectingAModelUnloadsThePreviousChatModelAndKeepsUnrelatedOnes() async throws {
        let harness = try Harness()
        _ = try await harness.session.loadModel("acme/vision-7b", conversationId: nil)
        let steps = Mutex<[ModelSelectionStep]>([])
        let selection = try await harness.session.selectModel("acme/thinker-8b", conversationId: harness.conversationId)
        { step in
            steps.withLock { $0.append(step) }
        }
        #expect(selection.unloaded == ["acme/tiny-1b"])
        #expect(selection.load?.instanceId == "acme/thinker-8b")
        #expect(steps.withLock { $0 }.first == .unloaded("acme/tiny-1b"))
        #expect(steps.withLock { $0 }.contains(.loading("acme/thinker-8b")))
        let loaded = try await harness.session.models(refresh: true).filter(\.isLoaded).map(\.key).sorted()
        #expect(loaded == ["acme/thinker-8b", "acme/vision-7b"])
        #expect(try harness.observer().conversation(id: harness.conversationId)?.modelKey == "acme/thinker-8b")
        await #expect(throws: ChatError.modelNotDownloaded("nobody/nothing")) {
            try await harness.session.selectModel("nobody/nothing", conversationId: harness.conversationId)
        }
    }

    @Test func openingResolvesReferencesAndCreatesWithOverrides() async throws {
        let harness = try Harness()
        let created = try await harness.session.openConversation(
            .new,
            overrides: ConversationOverrides(
                title: "Plans", model: "acme/thinker-8b", systemPrompt: "Be brief.", reasoning: "low",
                folder: .path("Work/Research")))
        #expect(created.conversation.modelKey == "acme/thinker-8b")
        #expect(created.conversation.settings.reasoning == "low")
        #expect(created.systemPrompt == .nextRequest)
        let library = try harness.observer()
        #expect(try created.conversation.folderId.map { try library.folderPath(id: $0) } == "Work/Research")
        #expect(try await harness.session.openConversation(.named("plans")).conversation.id == created.conversation.id)
        #expect(
            try await harness.session.openConversation(.named(String(created.conversation.id.prefix(8)))).conversation
                .id
                == created.conversation.id)
        _ = try await harness.session.openConversation(.new, overrides: ConversationOverrides(title: "Plans"))
        do {
            _ = try await harness.session.openConversation(.named("Plans"))
            Issue.record("an ambiguous title must not open a conversation")
        } catch ChatError.storage(.ambiguousConversation(_, let candidates)) {
            #expect(candidates.count == 2)
        }
        await #expect(throws: ChatError.unknownConversation(reference: "nothing-like-this", closest: [])) {
            try await harness.session.openConversation(.named("nothing-like-this"))
        }
        await #expect(throws: ChatError.unknownIntegration("nope", configured: [])) {
            try await harness.session.openConversation(.new, overrides: ConversationOverrides(integrations: ["nope"]))
        }
    }

    @Test func settingsAreCheckedInOnePlaceAndARefusalChangesNothing() async throws {
        let harness = try Harness(model: "acme/thinker-8b")
        let id = harness.conversationId
        let settings = try await harness.session.setSettings(
            [(.temperature, .text("0.3")), (.topK, .number(40))], conversationId: id)
        #expect(settings.temperature == 0.3)
        #expect(settings.topK == 40)
        await #expect(throws: ChatError.invalidSetting(.outOfRange("temperature", 0...1))) {
            try await harness.session.setSettings(
                [(.topP, .text("0.5")), (.temperature, .number(3))], conversationId: id)
        }
        #expect(
            try harness.observer().conversation(id: id)?.settings.topP == nil,
            "nothing is saved when one change is refused")
        await #expect(throws: ChatError.invalidSetting(.notPositive("max_output_tokens"))) {
            try await harness.session.setSettings([(.maxOutputTokens, .text("0"))], conversationId: id)
        }
        await #expect(
            throws: ChatError.invalidSetting(
                .reasoningNotOffered(model: "acme/thinker-8b", allowed: ["off", "low", "medium", "high"]))
        ) {
            try await harness.session.setSettings([(.reasoning, .text("extreme"))], conversationId: id)
        }
        #expect(
            try await harness.session.setSettings([(.reasoning, .text("high"))], conversationId: id).reasoning == "high"
        )
        #expect(
            try await harness.session.setSettings(
                [(.temperature, ConversationSetting.Value(typed: "default"))], conversationId: id
            )
            .temperature == nil)
        #expect(throws: SettingError.unknownKey("warmth", known: ConversationSetting.allCases.map(\.rawValue))) {
            try ConversationSetting.named("warmth")
        }
    }

    @Test func aSystemPromptChangedAfterTheFirstTurnNeedsAFreshContext() async throws {
        let harness = try Harness()
        let id = harness.conversationId
        #expect(try await harness.session.setSystemPrompt("Be brief.", conversationId: id) == .nextRequest)
        _ = try await harness.session.send(Turn(text: "echo:first"), in: id) { _ in }
        #expect(try await harness.session.setSystemPrompt("Be verbose.", conversationId: id) == .needsFreshContext)
        _ = try await harness.session.send(Turn(text: "echo:second"), in: id, freshContext: true) { _ in }
        let last = try #require(harness.fixture.requests(to: "/api/v1/chat").last)
        #expect(last.field("system_prompt") == "Be verbose.")
        #expect(last.field("previous_response_id") == nil)
        #expect(
            try await harness.session.setSystemPrompt("Be verbose.", conversationId: id) == .unchanged,
            "the same prompt again keeps the server context")
        let again = try await harness.session.openConversation(
            .named(id), overrides: ConversationOverrides(systemPrompt: "Be verbose."))
        #expect(again.systemPrompt == nil, "ask -c --system with the same text does not drop the context")
    }

    @Test func aReasoningOverrideIsCheckedLikeASettingAndARefusalSavesNothing() async throws {
        let harness = try Harness()
        await #expect(throws: ChatError.self) {
            try await harness.session.openConversation(
                .named(harness.conversationId),
                overrides: ConversationOverrides(reasoning: "extreme"))
        }
        #expect(try harness.observer().conversation(id: harness.conversationId)?.settings.reasoning == nil)
        await #expect(throws: ChatError.self) {
            try await harness.session.openConversation(
                .new, overrides: ConversationOverrides(model: "acme/tiny-1b", reasoning: "extreme"))
        }
        #expect(try harness.observer().conversations().count == 1, "a conversation made for the refused call is gone")
    }

    @Test func transfersGoThroughTheSessionsLibrary() async throws {
        let harness = try Harness()
        _ = try await harness.session.send(Turn(text: "echo:moved"), in: harness.conversationId) { _ in }
        let file = harness.sandbox.root + "/moved.llmster"
        let exported = try await harness.session.exportConversation("echo:moved") { _ in .file(file) }
        #expect(exported.conversation.id == harness.conversationId)
        #expect(exported.target == .file(file))
        let statistics = try await harness.session.backupLibrary(
            to: harness.sandbox.root + "/all.llmster-backup", password: nil)
        #expect(statistics.conversations == 1)
        let copy = try await harness.session.importConversation(
            from: file, options: ConversationImportOptions(asNew: true))
        #expect(copy.id != harness.conversationId)
        #expect(try harness.observer().messages(conversationId: copy.id).last?.text == "moved")
    }

    @Test func aMissingConversationIsATypedNotFound() async throws {
        let harness = try Harness()
        await #expect(throws: ChatError.storage(.notFound(kind: "conversation", reference: "0000"))) {
            try await harness.session.send(Turn(text: "hi"), in: "0000") { _ in }
        }
    }
}
