import EditorRPC
import Foundation
import LMStudio
import Library
import Simulator
import TestSupport
import Testing

/// rpc faces of server profiles (`server` on `chat/send`, `servers/use`), templates (`preset` and `stdin` on
/// `chat/send`) and model aliases (`model` on `chat/send`, `aliases` in `models/list`).
@Suite struct ServerTemplateAliasMethodTests {
    @Test func chatSendGoesToTheServerItNamesAndTheConversationRemembersIt() async throws {
        let desktop = try SimulatorFixture()
        let rig = try SimulatorFixture()
        let rpc = try RPCHarness(
            serverURL: desktop.url, settings: [("server.desktop", desktop.url), ("server.rig", rig.url)])
        await rpc.initialize()
        let sent = await rpc.call("chat/send", ["text": "echo:via rpc", "server": "rig"])
        let result = try #require(sent?["result"], "\(String(describing: sent))")
        #expect(result["serverProfile"] == "rig" && result["server"] == .string(rig.url), "\(result)")
        #expect(rig.requests(to: "/api/v1/chat").count == 1 && desktop.requests(to: "/api/v1/chat").isEmpty)
        #expect(await rpc.call("servers/list")?["result"]?["currentProfile"] == "rig")
        let conversation = try #require(result["conversationId"])
        let got = await rpc.call("conversations/get", ["id": conversation])
        #expect(got?["result"]?["conversation"]?["serverProfile"] == "rig", "\(String(describing: got))")

        let refused = await rpc.call("servers/use", ["server": "laptop"])
        #expect(
            refused?.errorKind == "invalid_params"
                && refused?["error"]?["message"]?.string?.contains("desktop, rig") == true)
        #expect(await rpc.call("servers/use", ["server": "desktop"])?["result"]?["currentProfile"] == "desktop")
        // The desktop was chosen: the conversation held on the rig is not continued without its earlier turns.
        let elsewhere = await rpc.call("chat/send", ["conversationId": conversation, "text": "echo:again"])
        #expect(elsewhere?.errorKind == "continuation_lost", "\(String(describing: elsewhere))")
        #expect(
            elsewhere?["error"]?["data"]?["server"]?.string?.contains(
                "server profile rig; --server rig or /server rig continues there") == true)
        #expect(desktop.requests(to: "/api/v1/chat").isEmpty)
        #expect(
            elsewhere?["error"]?["data"]?["returned"]?["text"] == "echo:again", "the message comes back to the editor")
        let there = await rpc.call("chat/send", ["conversationId": conversation, "text": "echo:again", "server": "rig"])
        #expect(
            there?["result"]?["status"] == "complete" && there?["result"]?["serverProfile"] == "rig",
            "\(String(describing: there))")
        #expect(
            rig.requests(to: "/api/v1/chat").last?.field("previous_response_id") != nil, "the rig continues its context"
        )
    }

    @Test func chatSendFillsAPresetsTemplateWithTextAndStdin() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(
            serverURL: fixture.url,
            settings: [
                ("preset.review.system", "You review diffs."),
                ("preset.review.template", "Review this diff:\\n\\n{{stdin}}\\n\\nFocus on {{input}}.")
            ])
        await rpc.initialize()
        let listed = await rpc.call("presets/list")?["result"]?["presets"]?.array.first
        #expect(
            listed?["template"] == "Review this diff:\n\n{{stdin}}\n\nFocus on {{input}}."
                && listed?["slots"] == ["input", "stdin"],
            "\(String(describing: listed))")
        let sent = await rpc.call("chat/send", ["text": "naming", "stdin": "+ a", "preset": "review"])
        #expect(sent?["result"]?["status"] == "complete", "\(String(describing: sent))")
        let request = try #require(fixture.requests(to: "/api/v1/chat").last)
        #expect(request.field("input") == "Review this diff:\n\n+ a\n\nFocus on naming.")
        #expect(request.field("system_prompt") == "You review diffs.")
        let unknown = await rpc.call("chat/send", ["text": "x", "preset": "nope"])
        #expect(
            unknown?.errorKind == "invalid_params"
                && unknown?["error"]?["message"]?.string?.contains("configured: review") == true)
        let badSlot = await rpc.call("config/set", ["key": "preset.review.template", "value": "{{selection}}"])
        #expect(
            badSlot?["error"]?["message"]?.string?.contains("{{selection}} is no slot") == true,
            "\(String(describing: badSlot))")
        #expect(fixture.requests(to: "/api/v1/chat").count == 1)
    }

    @Test func aliasesAreAcceptedAndListed() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url, settings: [("alias.fast", "acme/tiny-1b")])
        await rpc.initialize()
        let sent = await rpc.call("chat/send", ["text": "echo:rpc", "model": "fast"])
        #expect(sent?["result"]?["status"] == "complete", "\(String(describing: sent))")
        #expect(fixture.requests(to: "/api/v1/chat").last?.field("model") == "acme/tiny-1b")
        let list = try #require(await rpc.call("models/list")?["result"])
        #expect(list["aliases"]?["fast"] == "acme/tiny-1b")
        guard case .array(let models)? = list["models"] else {
            Issue.record("no models")
            return
        }
        #expect(models.first { $0["key"] == "acme/tiny-1b" }?["aliases"] == ["fast"])
        #expect(await rpc.call("models/load", ["model": "fast"])?["result"] != nil)
        #expect(fixture.requests(to: "/api/v1/models/load").last?.field("model") == "acme/tiny-1b")
    }

    @Test func aProfileChosenWithServersUseOutlivesAConfigReload() async throws {
        let desktop = try SimulatorFixture()
        let rig = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: desktop.url)
        await rpc.initialize()
        try rpc.sandbox.write("server.rig = \(rig.url)\n", to: "config/llmster/config")
        #expect(await rpc.call("servers/use", ["server": "rig"])?["result"]?["currentProfile"] == "rig")
        try rpc.sandbox.write("server.rig = \(rig.url)\nalias.fast = acme/tiny-1b\n", to: "config/llmster/config")
        #expect(await rpc.call("config/reload")?["result"] != nil)
        #expect(
            await rpc.call("servers/list")?["result"]?["currentProfile"] == "rig",
            "the reloaded session stays on the rig")
        _ = await rpc.call("chat/send", ["text": "echo:after reload", "model": "fast"])
        #expect(
            rig.requests(to: "/api/v1/chat").last?.field("model") == "acme/tiny-1b"
                && desktop.requests(to: "/api/v1/chat").isEmpty)
    }
}
