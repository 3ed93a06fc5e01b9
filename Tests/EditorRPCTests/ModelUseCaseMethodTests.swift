import EditorRPC
import Foundation
import LMStudio
import Simulator
import TestSupport
import Testing

/// `models/load` and `models/unload` are the engine's load and unload, as `/load`, `/unload`, `llmster load` and
/// `llmster unload` are: one context-length default, one answer for an instance that is not loaded.
@Suite struct ModelUseCaseMethodTests {
    @Test func loadWithoutAContextLengthUsesTheConfiguredOne() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url, settings: [("context_length", "2048")])
        await rpc.initialize()
        let loaded = try #require(await rpc.call("models/load", ["model": "acme/thinker-8b"])?["result"])
        let instance = try #require(loaded["instance_id"])
        let models = await rpc.call("models/list")?["result"]?["models"]?.array ?? []
        let instances = models.flatMap { $0["loaded_instances"]?.array ?? [] }
        #expect(instances.first { $0["id"] == instance }?["config"]?["context_length"] == 2048, "\(instances)")
        let asked = try #require(
            await rpc.call("models/load", ["model": "acme/thinker-8b", "contextLength": 1024])?["result"])
        let again =
            await rpc.call("models/list")?["result"]?["models"]?.array.flatMap { $0["loaded_instances"]?.array ?? [] }
            ?? []
        #expect(
            again.first { $0["id"] == asked["instance_id"] }?["config"]?["context_length"] == 1024,
            "an asked length wins")
        await rpc.closeInput()
    }

    /// The editors pick chat models by `canChat`, the engine's one predicate, rather than by a type of their own.
    @Test func theModelListSaysWhichModelsCanChat() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let models = await rpc.call("models/list")?["result"]?["models"]?.array ?? []
        #expect(models.first { $0["key"] == "acme/thinker-8b" }?["canChat"] == true, "\(models)")
        #expect(models.first { $0["key"] == "acme/embed-small" }?["canChat"] == false, "\(models)")
        await rpc.closeInput()
    }

    @Test func loadSuggestsTheNearestKeyAndRefusesWhatCannotLoad() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let typo = try #require(await rpc.call("models/load", ["model": "acme/thinker-8"]))
        #expect(typo.errorKind == "model_not_found")
        #expect(typo["error"]?["data"]?["suggestion"] == "acme/thinker-8b", "\(typo)")
        let gone = try #require(await rpc.call("models/unload", ["instanceId": "acme/thinker-8b"]))
        #expect(gone.errorKind == "not_found")
        #expect(gone["error"]?["message"]?.string?.contains("not a loaded instance") == true, "\(gone)")
        await rpc.closeInput()
    }
}
