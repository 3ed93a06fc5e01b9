import EditorRPC
import Foundation
import Simulator
import TestSupport
import Testing

/// What an editor sees of settings changed while `llmster rpc` runs, and of a model chosen before a chat's first message.
@Suite struct ConfigReloadTests {
    @Test func aChangedConfigFileIsReadAgainBeforeTheNextRequest() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        #expect(await rpc.call("presets/list")?["result"]?["presets"] == [])
        try rpc.sandbox.write("preset.pirate.system = Talk like a pirate.\n", to: "config/llmster/config")
        let names = await rpc.call("presets/list")?["result"]?["presets"]?.array.compactMap { $0["name"]?.string }
        #expect(names == ["pirate"], "a preset added while llmster rpc runs is offered")
        try rpc.sandbox.write("preset.pirate.system = Arr.\npreset.poet.system = Rhyme.\n", to: "config/llmster/config")
        let reloaded = await rpc.call("config/reload")?["result"]?["presets"]?.array.compactMap { $0["name"]?.string }
        #expect(reloaded == ["pirate", "poet"])
        try rpc.sandbox.write("no equals here\n", to: "config/llmster/config")
        #expect(
            await rpc.call("config/reload")?.errorKind != nil, "a config that does not read is an error, not a crash")
        #expect(await rpc.call("presets/list")?["result"]?["presets"]?.array.count == 2, "the settings in use stay")
        await rpc.closeInput()
    }

    /// Settings read again keep what the editor handed llmster rpc for the turns in hand: a context item waiting for
    /// the next message goes with it, and undoing an answer asked again still brings the one before back (a reload
    /// used to make a new session, which knew neither).
    @Test func settingsReadAgainKeepTheWaitingContextAndWhatAnUndoBringsBack() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let (conversation, shown) = try await TurnEdgeMethodTests.twoExchanges(rpc)
        let again = try #require(
            await rpc.call("chat/send", ["conversationId": conversation, "retry": true])?["result"]?["message"]?["id"])
        let added = await rpc.call(
            "context/add", ["conversationId": conversation, "name": "notes", "text": "kept across the reload"])
        #expect(added?["result"]?["items"]?.array.count == 1, "\(String(describing: added))")
        try rpc.sandbox.write("preset.pirate.system = Arr.\n", to: "config/llmster/config")
        let names = await rpc.call("presets/list")?["result"]?["presets"]?.array.compactMap { $0["name"]?.string }
        #expect(names == ["pirate"], "the changed file was read again")
        #expect(await rpc.call("config/reload")?["result"] != nil)

        let withdrawn = try #require(
            await rpc.call("chat/withdraw", ["conversationId": conversation, "messageId": again])?["result"])
        #expect(
            withdrawn["messages"]?.array.compactMap { $0["text"]?.string } == ["echo:one", "one", "echo:two", "two"],
            "only the answer asked again went: \(withdrawn)")
        #expect(withdrawn["messages"]?.array.last?["id"] == shown, "the answer shown before it is current again")
        #expect(await rpc.call("chat/send", ["conversationId": conversation, "text": "echo:three"])?["result"] != nil)
        #expect(
            fixture.requests(to: "/api/v1/chat").last?.field("input")
                == "notes:\n```\nkept across the reload\n```\n\necho:three",
            "the waiting item went with the next message")
        await rpc.closeInput()
    }

    @Test func aModelChosenBeforeTheFirstMessageFollowsTheLoadPolicy() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize(["coalesceMilliseconds": 0])
        let id = await rpc.request("models/selectPending", ["model": "acme/thinker-8b"])
        let (response, notifications) = await rpc.response(to: id)
        let result = try #require(response?["result"])
        #expect(
            result["unloaded"] == ["acme/tiny-1b"],
            "the model the chat would have used is unloaded, as the REPL's /model does")
        #expect(result["instanceId"] == "acme/thinker-8b")
        let steps = notifications.filter { $0["method"] == "models/progress" }.compactMap {
            $0["params"]?["type"]?.string
        }
        #expect(steps == ["unloaded", "loading", "loaded"])
        let again = await rpc.call("models/selectPending", ["model": "acme/vision-7b", "previous": "acme/thinker-8b"])?[
            "result"]
        #expect(again?["unloaded"] == ["acme/thinker-8b"], "the chat's earlier choice is the previous model")
        #expect(await rpc.call("models/selectPending", ["model": "nobody/nothing"])?.errorKind == "model_not_found")
        await rpc.closeInput()
    }
}
