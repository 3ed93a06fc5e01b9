import EditorRPC
import Foundation
import HTTP
import LMStudio
import Simulator
import Testing
import TestSupport

/// The editors see what the server reports: the configuration a load applied, and a reply's model load time.
@Suite struct ServerReportMethodTests {
    @Test func modelsLoadTakesTheLoadOptionsAndAnswersWithTheAppliedConfiguration() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let loaded = try #require(await rpc.call("models/load", ["model": "acme/multi-26b", "contextLength": 8192, "evalBatchSize": 128,
                                                                 "flashAttention": false, "numExperts": 2, "offloadKvCacheToGpu": true])?["result"])
        let config = try #require(loaded["load_config"])
        #expect(config["context_length"] == .number(8192) && config["eval_batch_size"] == .number(128), "\(loaded)")
        #expect(config["flash_attention"] == .bool(false) && config["num_experts"] == .number(2) && config["offload_kv_cache_to_gpu"] == .bool(true))
        #expect(await rpc.call("models/load", ["model": "acme/multi-26b", "flashAttention": "no"])?.errorKind == "invalid_params")
        await rpc.closeInput()
    }

    @Test func aReplyThatLoadedItsModelCarriesTheLoadTime() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        // rpc loads a conversation's model before its first message; unloaded behind its back (here by another client),
        // the server loads it just in time for the next reply.
        let first = try #require(await rpc.call("chat/send", ["text": "echo:hi", "model": "acme/toolsmith-12b"])?["result"])
        try await LMStudioClient(server: fixture.url, token: nil, transport: CurlTransport()).unload(instanceId: "acme/toolsmith-12b")
        let id = await rpc.request("chat/send", ["text": "echo:again", "conversationId": try #require(first["conversationId"])])
        let (response, _) = await rpc.response(to: id)
        let message = try #require(response?["result"]?["message"])
        #expect(message["stats"]?["model_load_time_seconds"] == .number(1.25), "\(message)")
        await rpc.closeInput()
    }
}

/// `servers/list`: the configured server profiles and which one is in use.
@Suite struct ServerListMethodTests {
    @Test func serversListNamesEachProfileAndTheCurrentServer() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url, settings: [("server.rig", "http://rig.local:1234"), ("server.here", fixture.url)])
        await rpc.initialize()
        let result = try #require(await rpc.call("servers/list")?["result"])
        let servers = result["servers"]?.array ?? []
        #expect(servers.map { $0["name"] } == ["here", "rig"])
        #expect(servers.first?["current"] == .bool(true) && servers.last?["current"] == .bool(false))
        #expect(servers.last?["url"] == "http://rig.local:1234" && result["current"] == .string(fixture.url))
        await rpc.closeInput()
    }
}
