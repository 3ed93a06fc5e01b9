import EditorRPC
import Foundation
import LMStudio
import Library
import Simulator
import TestSupport
import Testing

/// `models/select` and `conversations/setSettings`: the engine's use cases, reached from an editor.
@Suite struct UseCaseMethodTests {
    @Test func selectingAModelAppliesTheLoadPolicyWithProgress() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize(["coalesceMilliseconds": 0])
        #expect(
            await rpc.call("models/load", ["model": "acme/vision-7b"])?["result"]?["instance_id"] == "acme/vision-7b")
        let sent = try #require(await rpc.call("chat/send", ["text": "echo:hi", "model": "acme/tiny-1b"])?["result"])
        let conversationId = try #require(sent["conversationId"])
        let id = await rpc.request("models/select", ["conversationId": conversationId, "model": "acme/thinker-8b"])
        let (response, notifications) = await rpc.response(to: id)
        let result = try #require(response?["result"])
        #expect(result["unloaded"] == ["acme/tiny-1b"], "the previous chat model is unloaded")
        #expect(result["loaded"] == "acme/thinker-8b")
        #expect(result["instanceId"] == "acme/thinker-8b")
        let steps = notifications.filter { $0["method"] == "models/progress" }.compactMap {
            $0["params"]?["type"]?.string
        }
        #expect(steps == ["unloaded", "loading", "loaded"])
        let models = await rpc.call("models/list")?["result"]?["models"]?.array ?? []
        #expect(models.first { $0["key"] == "acme/vision-7b" }?["loaded"] == true, "an unrelated model is kept")
        #expect(models.first { $0["key"] == "acme/tiny-1b" }?["loaded"] == false)
        let conversation = await rpc.call("conversations/get", ["id": conversationId])?["result"]?["conversation"]
        #expect(conversation?["modelKey"] == "acme/thinker-8b")
        #expect(
            await rpc.call("models/select", ["conversationId": conversationId, "model": "nobody/nothing"])?.errorKind
                == "model_not_found")
        #expect(
            await rpc.call("models/select", ["conversationId": "nope", "model": "acme/tiny-1b"])?.errorKind
                == "not_found")
        await rpc.closeInput()
    }

    @Test func settingsAreValidatedWithTheREPLsChecks() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let created = await rpc.call("conversations/create", ["model": "acme/thinker-8b"])?["result"]
        let id = try #require(created?["id"])
        let set = await rpc.call(
            "conversations/setSettings",
            ["conversationId": id, "settings": .object(["temperature": .number(0.5), "reasoning": "low"])])
        #expect(set?["result"]?["settings"]?["temperature"] == .number(0.5), "\(String(describing: set))")
        #expect(set?["result"]?["settings"]?["reasoning"] == "low")
        let hot = await rpc.call(
            "conversations/setSettings", ["conversationId": id, "settings": .object(["temperature": 5])])
        #expect(hot?.errorKind == "invalid_params")
        #expect(hot?["error"]?["message"]?.string == "temperature takes a number from 0.0 to 1.0, or 'default'")
        let reasoning = await rpc.call(
            "conversations/setSettings", ["conversationId": id, "settings": .object(["reasoning": "extreme"])])
        #expect(reasoning?["error"]?["message"]?.string == "reasoning takes one of off, low, medium, high")
        #expect(
            await rpc.call("conversations/setSettings", ["conversationId": id, "settings": .object(["warmth": 1])])?
                .errorKind
                == "invalid_params")
        let cleared = await rpc.call(
            "conversations/setSettings", ["conversationId": id, "settings": .object(["temperature": .null])])
        #expect(cleared?["result"]?["settings"]?["temperature"] == nil)
        await rpc.closeInput()
    }

    @Test func aSystemPromptAfterTheFirstTurnAsksForAFreshContext() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let sent = try #require(
            await rpc.call("chat/send", ["text": "echo:first", "systemPrompt": "Be brief."])?["result"])
        let id = try #require(sent["conversationId"])
        let changed = await rpc.call(
            "conversations/setSettings", ["conversationId": id, "systemPrompt": "Be verbose."])?["result"]
        #expect(changed?["needsFreshContext"] == true)
        #expect(changed?["systemPrompt"] == "Be verbose.")
        _ = await rpc.call("chat/send", ["conversationId": id, "text": "echo:second", "freshContext": true])
        #expect(fixture.requests(to: "/api/v1/chat").last?.field("system_prompt") == "Be verbose.")
        let resent = try #require(
            await rpc.call("chat/send", ["conversationId": id, "text": "echo:third", "systemPrompt": "Be terse."])?[
                "result"])
        #expect(resent["freshContext"] == true, "a changed prompt on chat/send starts the fresh context it needs")
        let third = try #require(fixture.requests(to: "/api/v1/chat").last)
        #expect(third.field("system_prompt") == "Be terse.")
        #expect(third.field("previous_response_id") == nil)
        let same = try #require(
            await rpc.call("chat/send", ["conversationId": id, "text": "echo:fourth", "systemPrompt": "Be terse."])?[
                "result"])
        #expect(same["freshContext"] == false, "the same prompt again keeps the context")
        #expect(fixture.requests(to: "/api/v1/chat").last?.field("previous_response_id") != nil)
        await rpc.closeInput()
    }
}
