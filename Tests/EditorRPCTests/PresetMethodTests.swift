import EditorRPC
import Foundation
import Simulator
import TestSupport
import Testing

/// `presets/list`, and `conversations/create` with a `preset`.
@Suite struct PresetMethodTests {
    @Test func presetsAreListedAndGiveANewConversationTheirPromptAndSettings() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(
            serverURL: fixture.url,
            settings: [
                ("preset.reviewer.system", "You review diffs tersely."), ("preset.reviewer.temperature", "0.2")
            ])
        await rpc.initialize()
        let presets = await rpc.call("presets/list")?["result"]?["presets"]?.array ?? []
        #expect(presets.count == 1)
        #expect(presets.first?["name"] == "reviewer")
        #expect(presets.first?["systemPrompt"] == "You review diffs tersely.")
        #expect(presets.first?["settings"]?["temperature"] == "0.2")
        #expect(
            presets.first?["summary"] == "temperature 0.2 · \"You review diffs tersely.\"", "the REPL's /presets line")
        let created = try #require(await rpc.call("conversations/create", ["preset": "reviewer"])?["result"])
        #expect(created["systemPrompt"] == "You review diffs tersely.", "\(created)")
        let id = try #require(created["id"])
        _ = await rpc.call("chat/send", ["conversationId": id, "text": "echo:hi", "model": "acme/tiny-1b"])
        #expect(fixture.requests(to: "/api/v1/chat").last?.field("temperature") == "0.2")
        #expect(await rpc.call("conversations/create", ["preset": "nosuch"])?.errorKind == "invalid_params")
        #expect(
            await rpc.call("conversations/list")?["result"]?["conversations"]?.array.count == 1,
            "nothing is made for an unknown preset")
        await rpc.closeInput()
    }

    @Test func aPresetAppliedToAnAnsweredConversationChangesItsPromptAndSettingsAndAsksForAFreshContext() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(
            serverURL: fixture.url,
            settings: [
                ("preset.reviewer.system", "You review diffs tersely."), ("preset.reviewer.temperature", "0.2")
            ])
        await rpc.initialize()
        let id = try #require(await rpc.call("conversations/create")?["result"]?["id"])
        _ = await rpc.call("chat/send", ["conversationId": id, "text": "echo:hi", "model": "acme/tiny-1b"])
        let applied = try #require(
            await rpc.call("presets/apply", ["conversationId": id, "name": "reviewer"])?["result"])
        #expect(applied["systemPrompt"] == "You review diffs tersely.", "\(applied)")
        #expect(applied["needsFreshContext"] == true)
        _ = await rpc.call(
            "chat/send", ["conversationId": id, "text": "echo:again", "model": "acme/tiny-1b", "freshContext": true])
        #expect(fixture.requests(to: "/api/v1/chat").last?.field("temperature") == "0.2")
        #expect(
            await rpc.call("presets/apply", ["conversationId": id, "name": "nosuch"])?.errorKind == "invalid_params")
        #expect(
            await rpc.call("presets/apply", ["conversationId": "zzzz-none", "name": "reviewer"])?.errorKind
                == "not_found")
        await rpc.closeInput()
    }
}
