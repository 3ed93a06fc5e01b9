import Foundation
import Testing

@testable import LMStudio

let modelsJSON = #"""
    {
      "models": [
        {
          "type": "llm", "publisher": "qwen", "key": "qwen/qwen3-4b", "display_name": "Qwen3 4B",
          "architecture": "qwen3", "quantization": {"name": "Q4_K_M", "bits_per_weight": 4.8},
          "size_bytes": 2497280256, "params_string": "4B",
          "loaded_instances": [
            {"id": "qwen/qwen3-4b", "config": {"context_length": 8192, "eval_batch_size": 512, "flash_attention": true, "offload_kv_cache_to_gpu": true, "future_knob": 3}},
            {"id": "qwen/qwen3-4b:2", "config": {"context_length": 32768}}
          ],
          "max_context_length": 40960, "format": "gguf",
          "capabilities": {"vision": false, "trained_for_tool_use": true, "reasoning": {"allowed_options": ["off", "on"], "default": "on"}},
          "description": "A small thinking model", "brand_new_field": {"nested": [1, 2]}
        },
        {
          "type": "embedding", "publisher": "nomic-ai", "key": "text-embedding-nomic-embed-text-v1.5",
          "display_name": "Nomic Embed", "quantization": {"name": null, "bits_per_weight": null},
          "size_bytes": 84106624, "loaded_instances": [], "max_context_length": 2048, "format": "gguf"
        },
        {
          "type": "llm", "publisher": "google", "key": "google/gemma-3n", "display_name": "Gemma 3n",
          "size_bytes": 5000000000, "format": null,
          "capabilities": {"vision": true, "trained_for_tool_use": false},
          "variants": ["google/gemma-3n@q4_k_m", "google/gemma-3n@q8_0"], "selected_variant": "google/gemma-3n@q4_k_m"
        },
        {"type": "vlm-next", "publisher": "x", "key": "x/y", "display_name": "Y", "size_bytes": 1}
      ]
    }
    """#

/// The top-level keys of an encoded value.
func keys(of value: some Encodable) throws -> Set<String> {
    let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any]
    return Set(object?.keys.map { $0 } ?? [])
}

/// The encoded value as a `JSONValue`.
func json(of value: some Encodable) throws -> JSONValue {
    try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
}

struct VocabularyTests {
    @Test func modelListDecodesLikeTheServerSendsIt() throws {
        let models = try JSONDecoder().decode(ModelList.self, from: Data(modelsJSON.utf8)).models
        #expect(models.count == 4)
        let qwen = models[0]
        #expect(qwen.type == .llm && qwen.isLoaded && qwen.supportsReasoning)
        #expect(qwen.quantization == Quantization(name: "Q4_K_M", bitsPerWeight: 4.8))
        #expect(qwen.sizeBytes == 2_497_280_256)
        #expect(qwen.loadedInstances.map(\.id) == ["qwen/qwen3-4b", "qwen/qwen3-4b:2"])
        var expected = InstanceConfig(
            contextLength: 8192, evalBatchSize: 512, flashAttention: true, offloadKVCacheToGPU: true)
        expected.otherKeys = ["future_knob": .number(3)]
        #expect(qwen.loadedInstances[0].config == expected, "an undocumented key is kept, not dropped")
        #expect(qwen.capabilities?.reasoning == ReasoningCapability(allowedOptions: ["off", "on"], default: "on"))
        #expect(qwen.capabilities?.trainedForToolUse == true)

        let embedding = models[1]
        #expect(embedding.type == .embedding && !embedding.isLoaded && !embedding.supportsReasoning)
        #expect(embedding.capabilities == nil && embedding.architecture == nil)
        #expect(embedding.quantization == Quantization())

        let gemma = models[2]
        #expect(gemma.loadedInstances.isEmpty && gemma.format == nil && gemma.capabilities?.vision == true)
        #expect(gemma.variants?.count == 2 && gemma.selectedVariant == "google/gemma-3n@q4_k_m")

        #expect(models[3].type == .other("vlm-next"))
    }

    @Test func modelRoundTripsThroughItsOwnEncoding() throws {
        let models = try JSONDecoder().decode(ModelList.self, from: Data(modelsJSON.utf8))
        #expect(try JSONDecoder().decode(ModelList.self, from: JSONEncoder().encode(models)) == models)
    }

    let chatResultJSON = #"""
        {"model_instance_id": "qwen/qwen3-4b:2", "output": [
          {"type": "reasoning", "content": "think"},
          {"type": "tool_call", "tool": "search", "arguments": {"q": "swift", "n": 3, "deep": [true, null]}, "output": "found",
           "provider_info": {"type": "ephemeral_mcp", "server_label": "web"}},
          {"type": "invalid_tool_call", "reason": "bad args", "metadata": {"type": "invalid_arguments", "tool_name": "search",
           "arguments": {"q": 1}, "provider_info": {"type": "plugin", "plugin_id": "mcp/x"}}},
          {"type": "message", "content": "answer"},
          {"type": "hologram", "content": "?"}
        ], "stats": {"input_tokens": 10, "total_output_tokens": 20, "reasoning_output_tokens": 5, "tokens_per_second": 33.3,
           "time_to_first_token_seconds": 0.2, "model_load_time_seconds": 4.5, "extra": 1},
         "response_id": "resp_1"}
        """#

    @Test func chatResultDecodesEveryOutputItemKindAndRoundTrips() throws {
        let result = try JSONDecoder().decode(ChatResult.self, from: Data(chatResultJSON.utf8))
        #expect(
            result
                == ChatResult(
                    modelInstanceId: "qwen/qwen3-4b:2",
                    output: [
                        .reasoning("think"),
                        .toolCall(
                            ToolCall(
                                tool: "search",
                                arguments: .object([
                                    "q": .string("swift"), "n": .number(3), "deep": .array([.bool(true), .null])
                                ]),
                                output: "found", providerInfo: ProviderInfo(type: "ephemeral_mcp", serverLabel: "web"))),
                        .invalidToolCall(
                            InvalidToolCall(
                                reason: "bad args",
                                metadata: ToolCallFailureMetadata(
                                    type: "invalid_arguments", toolName: "search",
                                    arguments: .object(["q": .number(1)]),
                                    providerInfo: ProviderInfo(type: "plugin", pluginId: "mcp/x")))),
                        .message("answer"),
                        .unknown(type: "hologram")
                    ],
                    stats: ChatStats(
                        inputTokens: 10, totalOutputTokens: 20, reasoningOutputTokens: 5, tokensPerSecond: 33.3,
                        timeToFirstTokenSeconds: 0.2, modelLoadTimeSeconds: 4.5),
                    responseId: "resp_1"))
        #expect(try JSONDecoder().decode(ChatResult.self, from: JSONEncoder().encode(result)) == result)
    }

    @Test func chatResultToleratesMissingFields() throws {
        #expect(try JSONDecoder().decode(ChatResult.self, from: Data("{}".utf8)) == ChatResult())
    }

    @Test func jsonStringIsCompactAndKeySorted() {
        let value = JSONValue.object([
            "b": .array([.number(1), .number(2.5), .null]), "a": .string("q\"\n\u{1}"), "c": .bool(false)
        ])
        #expect(value.jsonString == #"{"a":"q\"\n\u0001","b":[1,2.5,null],"c":false}"#)
    }

    @Test func textOnlyChatRequestSendsOnlyTheSetFieldsAndAPlainString() throws {
        let request = ChatRequest(model: "qwen/qwen3-4b", input: .text("hi"), previousResponseId: "resp_1")
        #expect(try keys(of: request) == ["model", "input", "previous_response_id"])
        #expect(
            try json(of: request)
                == .object([
                    "model": .string("qwen/qwen3-4b"), "input": .string("hi"), "previous_response_id": .string("resp_1")
                ]))
        let itemsWithoutImage = ChatRequest(model: "m", input: .items([.text("a"), .text("b")]))
        #expect(try json(of: itemsWithoutImage.input) == .string("a\n\nb"))
    }

    @Test func inputCarriesImagesOnlyWhenThereAreSome() {
        #expect(ChatInput(text: "hi", imageDataURLs: []) == .text("hi"))
        #expect(
            ChatInput(text: "see", imageDataURLs: ["data:image/png;base64,AA"])
                == .items([.text("see"), .image(dataURL: "data:image/png;base64,AA")]))
    }

    @Test func everyChatRequestFieldUsesItsDocumentedName() throws {
        let request = ChatRequest(
            model: "m", input: .items([.text("look"), .image(dataURL: "data:image/png;base64,AAAA")]),
            systemPrompt: "be brief",
            integrations: [.plugin(id: "mcp/playwright", allowedTools: nil)], stream: true, temperature: 0.7, topP: 0.9,
            topK: 40,
            minP: 0.05, repeatPenalty: 1.1, maxOutputTokens: 100, reasoning: "low", contextLength: 4096, store: false,
            previousResponseId: "resp_x")
        #expect(
            try keys(of: request) == [
                "model", "input", "system_prompt", "integrations", "stream", "temperature", "top_p", "top_k", "min_p",
                "repeat_penalty", "max_output_tokens", "reasoning", "context_length", "store", "previous_response_id"
            ])
        #expect(
            try json(of: request.input)
                == .array([
                    .object(["type": .string("text"), "content": .string("look")]),
                    .object(["type": .string("image"), "data_url": .string("data:image/png;base64,AAAA")])
                ]))
    }

    @Test func integrationsEncodeAsIdOrObject() throws {
        let integrations: [Integration] = [
            .plugin(id: "mcp/playwright", allowedTools: nil),
            .plugin(id: "mcp/fs", allowedTools: ["read"]),
            .ephemeralMCP(
                serverLabel: "web", serverURL: "https://mcp.example/mcp", allowedTools: nil, headers: ["X-Key": "v"])
        ]
        #expect(
            try json(of: integrations)
                == .array([
                    .string("mcp/playwright"),
                    .object([
                        "type": .string("plugin"), "id": .string("mcp/fs"), "allowed_tools": .array([.string("read")])
                    ]),
                    .object([
                        "type": .string("ephemeral_mcp"), "server_label": .string("web"),
                        "server_url": .string("https://mcp.example/mcp"),
                        "headers": .object(["X-Key": .string("v")])
                    ])
                ]))
    }

    @Test func loadRequestSendsOnlyTheSetFieldsInSnakeCase() throws {
        #expect(try keys(of: LoadRequest(model: "m")) == ["model"])
        #expect(
            try keys(
                of: LoadRequest(
                    model: "m", contextLength: 1, evalBatchSize: 2, flashAttention: true, numExperts: 4,
                    offloadKVCacheToGPU: false, echoLoadConfig: true))
                == [
                    "model", "context_length", "eval_batch_size", "flash_attention", "num_experts",
                    "offload_kv_cache_to_gpu", "echo_load_config"
                ])
        #expect(try keys(of: DownloadRequest(model: "m")) == ["model"])
        #expect(try keys(of: UnloadRequest(instanceId: "m:2")) == ["instance_id"])
    }

    @Test func managementRepliesDecode() throws {
        let load = try JSONDecoder().decode(
            LoadResponse.self,
            from: Data(
                #"{"type":"llm","instance_id":"m:2","load_time_seconds":2.5,"status":"loaded","load_config":{"context_length":4096}}"#
                    .utf8))
        #expect(
            load
                == LoadResponse(
                    type: "llm", instanceId: "m:2", loadTimeSeconds: 2.5, status: "loaded",
                    loadConfig: InstanceConfig(contextLength: 4096)))
        let done = try JSONDecoder().decode(DownloadStatus.self, from: Data(#"{"status":"already_downloaded"}"#.utf8))
        #expect(done == DownloadStatus(status: "already_downloaded"))
        let running = try JSONDecoder().decode(
            DownloadStatus.self,
            from: Data(
                #"{"job_id":"job_1","status":"downloading","total_size_bytes":100,"downloaded_bytes":40,"bytes_per_second":10.5,"estimated_completion":"2026-01-01T00:00:10Z","started_at":"2026-01-01T00:00:00Z"}"#
                    .utf8))
        #expect(
            running.jobId == "job_1" && running.downloadedBytes == 40 && running.startedAt == "2026-01-01T00:00:00Z")
        #expect(
            try JSONDecoder().decode(Greeting.self, from: Data(#"{"lmstudio":true,"version":"0.4.1"}"#.utf8)).lmstudio)
        #expect(try !JSONDecoder().decode(Greeting.self, from: Data("{}".utf8)).lmstudio)
    }
}
