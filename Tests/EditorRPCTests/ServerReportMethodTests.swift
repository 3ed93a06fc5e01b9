import EditorRPC
import Foundation
import HTTP
import LMStudio
import Simulator
import TestSupport
import Testing

/// The editors see what the server reports: the configuration a load applied, and a reply's model load time.
@Suite struct ServerReportMethodTests {
    @Test func modelsLoadTakesTheLoadOptionsAndAnswersWithTheAppliedConfiguration() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let loaded = try #require(
            await rpc.call(
                "models/load",
                [
                    "model": "acme/multi-26b", "contextLength": 8192, "evalBatchSize": 128,
                    "flashAttention": false, "numExperts": 2, "offloadKvCacheToGpu": true
                ])?["result"])
        let config = try #require(loaded["load_config"])
        #expect(config["context_length"] == .number(8192) && config["eval_batch_size"] == .number(128), "\(loaded)")
        #expect(
            config["flash_attention"] == .bool(false) && config["num_experts"] == .number(2)
                && config["offload_kv_cache_to_gpu"] == .bool(true))
        #expect(
            await rpc.call("models/load", ["model": "acme/multi-26b", "flashAttention": "no"])?.errorKind
                == "invalid_params")
        await rpc.closeInput()
    }

    /// A model unloaded behind rpc's back (here by another client) is loaded again under the load policy before the next
    /// message, and the load reads as progress.
    @Test func aModelUnloadedElsewhereIsLoadedAgainBeforeTheNextMessage() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let first = try #require(
            await rpc.call("chat/send", ["text": "echo:hi", "model": "acme/toolsmith-12b"])?["result"])
        try await LMStudioClient(server: fixture.url, token: nil, transport: CurlTransport()).unload(
            instanceId: "acme/toolsmith-12b")
        let id = await rpc.request(
            "chat/send", ["text": "echo:again", "conversationId": try #require(first["conversationId"])])
        let (response, notifications) = await rpc.response(to: id)
        #expect(response?["result"]?["status"] == "complete", "\(String(describing: response))")
        #expect(notifications.contains { $0["params"]?["type"] == "model_load.progress" }, "\(notifications)")
        let loaded = try await LMStudioClient(server: fixture.url, token: nil, transport: CurlTransport()).models()
            .flatMap { $0.loadedInstances.map(\.id) }
        #expect(loaded == ["acme/toolsmith-12b"])
        await rpc.closeInput()
    }
}

/// `servers/list`: the configured server profiles and which one is in use.
@Suite struct ServerListMethodTests {
    @Test func serversListNamesEachProfileAndTheCurrentServer() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(
            serverURL: fixture.url, settings: [("server.rig", "http://rig.local:1234"), ("server.here", fixture.url)])
        await rpc.initialize()
        let result = try #require(await rpc.call("servers/list")?["result"])
        let servers = result["servers"]?.array ?? []
        #expect(servers.map { $0["name"] } == ["here", "rig"])
        #expect(servers.first?["current"] == .bool(true) && servers.last?["current"] == .bool(false))
        #expect(servers.last?["url"] == "http://rig.local:1234" && result["current"] == .string(fixture.url))
        await rpc.closeInput()
    }
}
