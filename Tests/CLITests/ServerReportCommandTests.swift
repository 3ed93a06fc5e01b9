import Foundation
import Library
import Simulator
import TestSupport
import Testing

/// What the server reports about models and instances reaches the user: load options and the applied
/// configuration, instance configs, variants, the reasoning default and descriptions; and the token rules.
@Suite(.spawnsProcesses) struct ServerReportCommandTests {
    @Test func loadTakesEveryLoadOptionAndShowsTheAppliedConfiguration() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let loaded = try await cli.run([
            "load", "acme/multi-26b", "--context-length", "8192", "--eval-batch-size", "256",
            "--flash-attention", "off", "--num-experts", "4", "--offload-kv-cache-to-gpu", "off"
        ])
        #expect(loaded.status == 0, "\(loaded)")
        let request = try #require(fixture.requests(to: "/api/v1/models/load").last)
        #expect(request.field("eval_batch_size") == "256" && request.field("flash_attention") == "false")
        #expect(request.field("num_experts") == "4" && request.field("offload_kv_cache_to_gpu") == "false")
        #expect(request.field("echo_load_config") == "true")
        #expect(
            loaded.output.contains(
                "Loaded acme/multi-26b as acme/multi-26b in 1.2 s: context 8,192 · batch 256 · no flash attention · 4 experts · KV cache in RAM."
            ),
            "\(loaded.output)")
        let bad = try await cli.run(["load", "acme/multi-26b", "--flash-attention", "maybe"])
        #expect(bad.status == 2)
    }

    @Test func psShowsEachInstancesConfiguration() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(try await cli.run(["load", "acme/embed-small"]).status == 0)
        let table = try await cli.run(["ps"])
        let tiny = try #require(table.output.split(separator: "\n").first { $0.hasPrefix("acme/tiny-1b") })
        #expect(tiny.contains("parallel 4 · batch 512 · flash attention · KV cache on GPU"), "\(table.output)")
        let embed = try #require(table.output.split(separator: "\n").first { $0.hasPrefix("acme/embed-small") })
        #expect(!embed.contains("batch"), "an embedding instance has no llama.cpp options")
        let json = try await cli.run(["ps", "--json"])
        let instances = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        let config = try #require(
            instances.first { $0["id"] as? String == "acme/tiny-1b" }?["config"] as? [String: Any])
        #expect(
            config["parallel"] as? Int == 4 && config["flash_attention"] as? Bool == true
                && config["eval_batch_size"] as? Int == 512)
    }

    @Test func modelsShowVariantsTheReasoningDefaultAndDescriptions() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let table = try await cli.run(["models"])
        let multi = try #require(table.output.split(separator: "\n").first { $0.hasPrefix("acme/multi-26b") })
        #expect(multi.contains("reasoning(on/off, default on)") && multi.contains("q8_0 (of 2)"), "\(table.output)")
        let json = try await cli.run(["models", "--json"])
        let models = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        let listed = try #require(models.first { $0["key"] as? String == "acme/multi-26b" })
        #expect(listed["variants"] as? [String] == ["acme/multi-26b@q4_k_m", "acme/multi-26b@q8_0"])
        #expect(listed["selected_variant"] as? String == "acme/multi-26b@q8_0")
        #expect(listed["description"] as? String == "A mixture-of-experts model with several variants.")
        #expect((listed["capabilities"] as? [String: Any])?["reasoning_default"] as? String == "on")
    }

    /// A token of an unusual shape is sent, with one warning that never shows it.
    @Test func anUnusualTokenIsSentWithAWarning() async throws {
        let token = "lm-next-generation-token-42"
        let fixture = try SimulatorFixture(SimulatorOptions(requireToken: token))
        let result = try await CLI(server: fixture.url, environment: ["LM_API_TOKEN": token]).run(["models"])
        #expect(result.status == 0, "\(result)")
        #expect(result.errors.components(separatedBy: "does not look like").count == 2, "warned once: \(result.errors)")
        #expect(!result.errors.contains(token) && !result.output.contains(token))
        #expect(fixture.requests(to: "/api/v1/models").last?.headers["authorization"] == "Bearer \(token)")
    }

    @Test func aTokenWithoutPermissionIsToldApartFromAWrongOne() async throws {
        let token = "sk-lm-abcd1234:abcdefghij0123456789"
        let limited = "sk-lm-list0000:listlistlistlistlist"
        let fixture = try SimulatorFixture(SimulatorOptions(requireToken: token, listOnlyToken: limited))
        let result = try await CLI(server: fixture.url, environment: ["LM_API_TOKEN": limited]).run([
            "load", "acme/thinker-8b"
        ])
        #expect(result.status == 4)
        #expect(result.errors.contains("the token lacks permission for this request"), "\(result.errors)")
        #expect(!result.errors.contains("rejected") && !result.errors.contains(limited))
    }

    @Test func requestsNameTheClient() async throws {
        let fixture = try SimulatorFixture()
        _ = try await CLI(server: fixture.url).run(["models"])
        #expect(
            fixture.requests(to: "/api/v1/models").last?.headers["user-agent"]?.hasPrefix("llmster-client/") == true)
    }
}

/// `show` says when the server loaded the model for a reply, and how long it took.
@Suite(.spawnsProcesses) struct ShowLoadTimeTests {
    /// llmster loads a conversation's model before sending (the load policy), so the server loads one just in time only
    /// when something unloaded it in between (another client, an idle eviction): such a reply is made here in the library.
    @Test func showNamesTheModelLoadTimeOfAReplyThatLoadedItsModel() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(try await cli.run(["ask", "-m", "acme/toolsmith-12b", "echo:loaded for me"]).status == 0)
        #expect(try await cli.run(["ask", "-c", "echo:already there"]).status == 0)
        let library = try LibraryStore(path: cli.sandbox.libraryPath)
        let conversation = try #require(try library.conversations().first)
        let reply = try #require(try library.messages(conversationId: conversation.id).first { $0.role == .assistant })
        try library.updateReply(
            messageId: reply.id,
            MessageContent(
                text: reply.text, status: .complete,
                statsJSON: #"{"total_output_tokens":3,"model_load_time_seconds":1.26}"#))
        let show = try await cli.run(["show", "echo:loaded for me"])
        #expect(show.status == 0, "\(show)")
        #expect(
            show.output.components(separatedBy: "the server loaded the model for this reply in 1.3 s").count == 2,
            "once: \(show.output)")
    }
}
