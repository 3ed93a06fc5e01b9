import Chat
import Foundation
import HTTP
import LMStudio
import Library
import Simulator
import TestSupport
import Testing

/// Settings checked as LM Studio documents them, and left to the server where the server's model list is silent.
@Suite struct ServerCompatibilityTests {
    struct Harness {
        let fixture: SimulatorFixture
        let sandbox: Sandbox
        /// A second connection to the library file, to create conversations as another face would.
        let library: LibraryStore
        let session: ChatSession

        init(_ options: SimulatorOptions = SimulatorOptions()) throws {
            fixture = try SimulatorFixture(options)
            sandbox = try Sandbox()
            var configuration = Configuration()
            configuration.server = fixture.url
            session = ChatSession(
                client: LMStudioClient(server: fixture.url, token: nil, transport: CurlTransport()),
                library: try LibraryStore(path: sandbox.libraryPath), configuration: configuration)
            library = try LibraryStore(path: sandbox.libraryPath)
        }

        func conversation(model: String, settings: ConversationSettings = ConversationSettings()) throws -> String {
            try library.createConversation(title: "", modelKey: model, settings: settings).id
        }

        func setReasoning(_ value: String, in id: String) async throws {
            _ = try await session.setSettings([(.reasoning, .text(value))], conversationId: id)
        }

        func send(_ text: String, in id: String) async throws -> SavedReply {
            try await session.send(Turn(text: text), in: id) { _ in }
        }

        var chatRequests: [RecordedRequest] { fixture.requests(to: "/api/v1/chat") }
    }

    /// A server that lists `capabilities.reasoning` for no model predates that field: any value is accepted and
    /// sent (the documented ones, or one such as `xhigh` the docs do not list), and the server's refusal, if any, is
    /// shown as the server's.
    @Test func anEarlyServerGetsTheDocumentedReasoningValuesAndDecides() async throws {
        let harness = try Harness(SimulatorOptions(earlyModelList: true))
        let thinker = try harness.conversation(model: "acme/thinker-8b")
        try await harness.setReasoning("low", in: thinker)
        #expect(try await harness.send("echo:thought", in: thinker).status == .complete)
        #expect(harness.chatRequests.last?.field("reasoning") == "low")

        let tiny = try harness.conversation(model: "acme/tiny-1b")
        try await harness.setReasoning("high", in: tiny)
        do {
            _ = try await harness.send("hi", in: tiny)
            Issue.record("the server's refusal was not reported")
        } catch let error as ChatError {
            guard case .server(.invalidRequest(let message, let param, _)) = error else {
                Issue.record("got \(error)")
                return
            }
            #expect(param == "reasoning" && message.contains("does not support reasoning"))
            #expect(error.description.contains("LM Studio refused the request (reasoning)"))
        }
        #expect(harness.chatRequests.last?.field("reasoning") == "high", "it was sent: the server decided")

        try await harness.setReasoning("xhigh", in: thinker)
        do {
            _ = try await harness.send("hi", in: thinker)
            Issue.record("the server's refusal was not reported")
        } catch let error as ChatError {
            guard case .server(.invalidRequest(_, let param, _)) = error else {
                Issue.record("got \(error)")
                return
            }
            #expect(param == "reasoning")
        }
        #expect(
            harness.chatRequests.last?.field("reasoning") == "xhigh", "not refused before sending: the server decided")
    }

    /// A newer server lists reasoning for the models that have it: another model's reasoning is refused before sending.
    @Test func aNewerServerListingNoReasoningForTheModelIsRefusedBeforeSending() async throws {
        let harness = try Harness()
        let tiny = try harness.conversation(model: "acme/tiny-1b")
        await #expect(throws: ChatError.invalidSetting(.reasoningNotOffered(model: "acme/tiny-1b", allowed: []))) {
            try await harness.setReasoning("low", in: tiny)
        }
        var settings = ConversationSettings()
        settings.reasoning = "low"
        let stored = try harness.conversation(model: "acme/tiny-1b", settings: settings)
        await #expect(throws: ChatError.reasoningNotAllowed(value: "low", model: "acme/tiny-1b", allowed: [])) {
            try await harness.send("hi", in: stored)
        }
        #expect(harness.chatRequests.isEmpty)
    }

    /// `chat.md` gives temperature in [0, 1]: `/set` refuses more, and a value saved before (up to 2 was taken)
    /// meets the server's refusal, which names the parameter and its bound.
    @Test func temperatureFollowsTheDocumentedRange() async throws {
        let harness = try Harness()
        let id = try harness.conversation(model: "acme/tiny-1b")
        await #expect(throws: ChatError.invalidSetting(.outOfRange("temperature", 0...1))) {
            _ = try await harness.session.setSettings([(.temperature, .text("1.5"))], conversationId: id)
        }
        _ = try await harness.session.setSettings([(.temperature, .text("1"))], conversationId: id)
        var settings = ConversationSettings()
        settings.temperature = 1.5
        let old = try harness.conversation(model: "acme/tiny-1b", settings: settings)
        do {
            _ = try await harness.send("hi", in: old)
            Issue.record("an out-of-range temperature was accepted")
        } catch let error as ChatError {
            #expect(
                error.description.contains("temperature") && error.description.contains("less than or equal to 1"),
                "\(error)")
        }
    }
}
