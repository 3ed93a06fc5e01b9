import EditorRPC
import Foundation
import Simulator
import Testing
import TestSupport

/// What an editor hears for a preset on a new conversation, an unknown conversation and an unknown model: the
/// engine's rules, with the candidates and the suggestion in the error data.
@Suite struct SuggestionMethodTests {
    @Test func createWithAPresetKeepsTheExplicitPromptAndModel() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url, settings: [
            ("preset.reviewer.system", "You review diffs tersely."), ("preset.reviewer.model", "acme/thinker-8b"),
            ("preset.reviewer.temperature", "0.2"),
        ])
        await rpc.initialize()
        let created = try #require(await rpc.call("conversations/create", [
            "preset": "reviewer", "systemPrompt": "Be kind.", "model": "acme/tiny-1b",
        ])?["result"])
        #expect(created["systemPrompt"] == "Be kind.", "\(created)")
        #expect(created["modelKey"] == "acme/tiny-1b", "\(created)")
        #expect(created["settings"]?["temperature"] == .number(0.2), "\(created)")
        await rpc.closeInput()
    }

    @Test func anUnknownConversationAnswersNotFoundWithTheClosestTitles() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let id = try #require(await rpc.call("conversations/create", ["title": "Explain SSE"])?["result"]?["id"])
        let answer = try #require(await rpc.call("chat/send", ["conversationId": "Explain SEE", "text": "echo:hi"]))
        #expect(answer.errorKind == "not_found", "\(answer)")
        let candidates = answer["error"]?["data"]?["candidates"]?.array ?? []
        #expect(candidates.first?["id"] == id, "\(answer)")
        #expect(candidates.first?["title"] == "Explain SSE")
        #expect(fixture.requests(to: "/api/v1/chat").isEmpty, "nothing is sent")
        await rpc.closeInput()
    }

    @Test func anUnknownModelAnswersWithTheNearestKey() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let id = try #require(await rpc.call("conversations/create")?["result"]?["id"])
        let select = try #require(await rpc.call("models/select", ["conversationId": id, "model": "acme/thinekr-8b"]))
        #expect(select.errorKind == "model_not_found", "\(select)")
        #expect(select["error"]?["data"]?["suggestion"] == "acme/thinker-8b", "\(select)")
        #expect(select["error"]?["message"]?.string?.contains("did you mean acme/thinker-8b?") == true, "\(select)")
        let load = try #require(await rpc.call("models/load", ["model": "acme/tiny-b1"]))
        #expect(load["error"]?["data"]?["suggestion"] == "acme/tiny-1b", "\(load)")
        let far = try #require(await rpc.call("models/select", ["conversationId": id, "model": "zzz/nothing-alike"]))
        #expect(far["error"]?["data"]?["suggestion"] == .null, "\(far)")
        await rpc.closeInput()
    }
}
