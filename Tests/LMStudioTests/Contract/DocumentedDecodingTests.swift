import Foundation
import Testing

@testable import LMStudio

/// The client reads every documented reply and event field for field, and writes every documented request.
@Suite struct DocumentedDecodingTests {
    func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }

    /// `text` as a comparable JSON value.
    func value(_ text: String) throws -> JSONValue {
        try decode(JSONValue.self, text)
    }

    /// What the client sends for `request`, as a JSON value.
    func sent(_ request: some Encodable) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(request))
    }

    static let huggingface = ProviderInfo(type: "ephemeral_mcp", serverLabel: "huggingface")

    // MARK: chat.md, stateful-chats.mdx, mcp.mdx

    @Test func chatReplyWithMCPFollowsChatMd() throws {
        let result = try decode(ChatResult.self, DocumentedExamples.chatReplyWithMCP)
        #expect(
            result
                == ChatResult(
                    modelInstanceId: "ibm/granite-4-micro",
                    output: [
                        .toolCall(
                            ToolCall(
                                tool: "model_search",
                                arguments: .object([
                                    "sort": .string("trendingScore"), "query": .string(""), "limit": .number(1)
                                ]),
                                output: "...", providerInfo: Self.huggingface)),
                        .message("..."),
                        .toolCall(
                            ToolCall(
                                tool: "browser_navigate", arguments: .object(["url": .string("https://lmstudio.ai")]),
                                output: "...",
                                providerInfo: ProviderInfo(type: "plugin", pluginId: "mcp/playwright"))),
                        .message("**Top Trending Model on Hugging Face** ...")
                    ],
                    stats: ChatStats(
                        inputTokens: 646, totalOutputTokens: 586, reasoningOutputTokens: 0,
                        tokensPerSecond: 29.753900615398926,
                        timeToFirstTokenSeconds: 1.088, modelLoadTimeSeconds: 2.656),
                    responseId: "resp_4ef013eba0def1ed23f19dde72b67974c579113f544086de"))
    }

    @Test func chatReplyWithImagesHasNoLoadTime() throws {
        let result = try decode(ChatResult.self, DocumentedExamples.chatReplyWithImages)
        #expect(
            result.modelInstanceId == "qwen/qwen3-vl-4b"
                && result.output == [.message("This image is a solid, vibrant red square ...")])
        #expect(
            result.stats
                == ChatStats(
                    inputTokens: 17, totalOutputTokens: 50, reasoningOutputTokens: 0,
                    tokensPerSecond: 51.03762685242662,
                    timeToFirstTokenSeconds: 0.814, modelLoadTimeSeconds: nil))
        #expect(result.responseId == "resp_0182bd7c479d7451f9a35471f9c26b34de87a7255856b9a4")
    }

    @Test func invalidToolCallItemsFollowChatMd() throws {
        let items = try decode([OutputItem].self, DocumentedExamples.invalidToolCallItems)
        #expect(
            items == [
                .invalidToolCall(
                    InvalidToolCall(
                        reason: "Cannot find tool with name open_browser.",
                        metadata: ToolCallFailureMetadata(type: "invalid_name", toolName: "open_browser"))),
                .invalidToolCall(
                    InvalidToolCall(
                        reason: "Invalid arguments.",
                        metadata: ToolCallFailureMetadata(
                            type: "invalid_arguments", toolName: "model_search",
                            arguments: .object(["limit": .string("one")]), providerInfo: Self.huggingface)))
            ])
    }

    @Test func statefulReplyWithoutStatsFollowsStatefulChats() throws {
        let result = try decode(ChatResult.self, DocumentedExamples.statefulReply)
        #expect(
            result
                == ChatResult(
                    modelInstanceId: "ibm/granite-4-micro",
                    output: [.message("That's great! Blue is a beautiful color...")],
                    stats: nil, responseId: "resp_abc123xyz..."))
    }

    @Test func interleavedReplyFollowsMcpMdx() throws {
        let result = try decode(ChatResult.self, DocumentedExamples.mcpEphemeralReply)
        #expect(
            result.output == [
                .reasoning("..."), .message("..."),
                .toolCall(
                    ToolCall(
                        tool: "model_search",
                        arguments: .object(["sort": .string("trendingScore"), "limit": .number(1)]), output: "...",
                        providerInfo: Self.huggingface)),
                .reasoning("\n"), .message("The top trending model is ...")
            ])
        #expect(result.stats?.reasoningOutputTokens == 195 && result.stats?.modelLoadTimeSeconds == nil)
    }

    @Test func chatRequestsAreWrittenAsDocumented() throws {
        let mcp = ChatRequest(
            model: "ibm/granite-4-micro",
            input: .text("Tell me the top trending model on hugging face and navigate to https://lmstudio.ai"),
            integrations: [
                .ephemeralMCP(
                    serverLabel: "huggingface", serverURL: "https://huggingface.co/mcp", allowedTools: ["model_search"],
                    headers: nil),
                .plugin(id: "mcp/playwright", allowedTools: ["browser_navigate"])
            ],
            temperature: 0, contextLength: 8000)
        #expect(try sent(mcp) == value(DocumentedExamples.chatRequestWithMCP))

        let image =
            "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAoAAAAKCAYAAACNMs+9AAAAFUlEQVR42mP8z8BQz0AEYBxVSF+FABJADveWkH6oAAAAAElFTkSuQmCC"
        let images = ChatRequest(
            model: "qwen/qwen3-vl-4b",
            input: ChatInput(text: "Describe this image in two sentences", imageDataURLs: [image]),
            temperature: 0, contextLength: 2048)
        #expect(try sent(images) == value(DocumentedExamples.chatRequestWithImages))

        #expect(
            try sent(ChatRequest(model: "ibm/granite-4-micro", input: .text("My favorite color is blue.")))
                == value(DocumentedExamples.statefulStart))
        #expect(
            try sent(
                ChatRequest(
                    model: "ibm/granite-4-micro", input: .text("What color did I just mention?"),
                    previousResponseId: "resp_abc123xyz..."))
                == value(DocumentedExamples.statefulContinue))
        #expect(
            try sent(ChatRequest(model: "ibm/granite-4-micro", input: .text("Tell me a joke."), store: false))
                == value(DocumentedExamples.statelessChat))
        #expect(
            try sent(
                ChatRequest(
                    model: "ibm/granite-4-micro", input: .text("Open lmstudio.ai"),
                    integrations: [.plugin(id: "mcp/playwright", allowedTools: nil)],
                    temperature: 0, contextLength: 8000))
                == value(DocumentedExamples.mcpJSONRequest))
        let headers = ChatRequest(
            model: "ibm/granite-4-micro",
            input: .text("Give me details about my SUPER-SECRET-PRIVATE Hugging face model"),
            integrations: [
                .ephemeralMCP(
                    serverLabel: "huggingface", serverURL: "https://huggingface.co/mcp", allowedTools: ["model_search"],
                    headers: ["Authorization": "Bearer <YOUR_HF_TOKEN>"])
            ],
            contextLength: 8000)
        #expect(try sent(headers) == value(DocumentedExamples.mcpHeadersRequest))
    }

    // MARK: streaming-events.md

    static let expectedEvents: [ChatEvent] = [
        .chatStart(modelInstanceId: "openai/gpt-oss-20b"),
        .modelLoadStart(modelInstanceId: "openai/gpt-oss-20b"),
        .modelLoadProgress(0.65),
        .modelLoadEnd(loadTimeSeconds: 12.34),
        .promptProcessingStart,
        .promptProcessingProgress(0.5),
        .promptProcessingEnd,
        .reasoningStart,
        .reasoningDelta("Need to"),
        .reasoningEnd,
        .toolCallStart(tool: "model_search", provider: huggingface),
        .toolCallArguments(
            tool: "model_search", arguments: .object(["sort": .string("trendingScore"), "limit": .number(1)]),
            provider: huggingface),
        .toolCallSuccess(
            tool: "model_search", arguments: .object(["sort": .string("trendingScore"), "limit": .number(1)]),
            output: #"[{"type":"text","text":"Showing first 1 models..."}]"#, provider: huggingface),
        .toolCallFailure(
            reason: "Cannot find tool with name open_browser.",
            metadata: ToolCallFailureMetadata(type: "invalid_name", toolName: "open_browser")),
        .messageStart,
        .messageDelta("The current"),
        .messageEnd,
        .error(
            APIErrorPayload(
                type: "invalid_request", message: "\"model\" is required", code: "missing_required_parameter",
                param: "model")),
        .chatEnd(
            ChatResult(
                modelInstanceId: "openai/gpt-oss-20b",
                output: [
                    .reasoning("Need to call function."),
                    .toolCall(
                        ToolCall(
                            tool: "model_search",
                            arguments: .object(["sort": .string("trendingScore"), "limit": .number(1)]),
                            output: #"[{"type":"text","text":"Showing first 1 models..."}]"#, providerInfo: huggingface)
                    ),
                    .message("The current top‑trending model is...")
                ],
                stats: ChatStats(
                    inputTokens: 329, totalOutputTokens: 268, reasoningOutputTokens: 5, tokensPerSecond: 43.73,
                    timeToFirstTokenSeconds: 0.781),
                responseId: "resp_02b2017dbc06c12bfc353a2ed6c2b802f8cc682884bb5716"))
    ]

    @Test func everyDocumentedEventExampleDecodes() throws {
        #expect(DocumentedExamples.streamEvents.count == 19, "streaming-events.md lists 19 event types")
        let decoder = ChatEventDecoder()
        for (example, expected) in zip(DocumentedExamples.streamEvents, Self.expectedEvents) {
            #expect(decoder.decode(SSEEvent(name: example.name, data: example.data)) == expected, "\(example.name)")
        }
    }

    /// The 19 examples as one stream in the documented order and raw format, cut at several places.
    @Test(arguments: [1, 7, 64, Int.max])
    func documentedStreamDecodesInOrder(chunk: Int) throws {
        let bytes = Array(DocumentedExamples.streamBody.utf8)
        var parser = SSEParser()
        var events: [SSEEvent] = []
        var start = 0
        while start < bytes.count {
            let end = start + min(chunk, bytes.count - start)
            events += try parser.feed(bytes[start..<end])
            start = end
        }
        events += parser.finish()
        let decoder = ChatEventDecoder()
        #expect(events.compactMap(decoder.decode) == Self.expectedEvents)
    }

    // MARK: list.md

    @Test func modelListFollowsListMd() throws {
        let models = try decode(ModelList.self, DocumentedExamples.modelList).models
        #expect(models.count == 3)
        let gemma = models[0]
        #expect(
            gemma
                == Model(
                    type: .llm, publisher: "google", key: "google/gemma-4-26b-a4b", displayName: "Gemma 4 26B A4B",
                    architecture: "gemma4",
                    quantization: Quantization(name: "Q4_K_M", bitsPerWeight: 4), sizeBytes: 17_990_911_801,
                    paramsString: "26B-A4B",
                    loadedInstances: [
                        LoadedInstance(
                            id: "google/gemma-4-26b-a4b",
                            config: InstanceConfig(
                                contextLength: 4096, evalBatchSize: 512, parallel: 4, flashAttention: true,
                                numExperts: 8, offloadKVCacheToGPU: true))
                    ],
                    maxContextLength: 262_144, format: "gguf",
                    capabilities: Capabilities(
                        vision: true, trainedForToolUse: true,
                        reasoning: ReasoningCapability(allowedOptions: ["off", "on"], default: "on")),
                    description: nil, variants: ["google/gemma-4-26b-a4b@q4_k_m"],
                    selectedVariant: "google/gemma-4-26b-a4b@q4_k_m"))
        let deepseek = models[1]
        #expect(
            deepseek.key == "deepseek-r1" && !deepseek.isLoaded && deepseek.variants == nil
                && deepseek.selectedVariant == nil)
        #expect(deepseek.capabilities?.reasoning == ReasoningCapability(allowedOptions: ["on"], default: "on"))
        let embedding = models[2]
        #expect(
            embedding
                == Model(
                    type: .embedding, publisher: "gaianet", key: "text-embedding-nomic-embed-text-v1.5-embedding",
                    displayName: "Nomic Embed Text v1.5",
                    quantization: Quantization(name: "F16", bitsPerWeight: 16), sizeBytes: 274_290_560,
                    paramsString: nil, maxContextLength: 2048, format: "gguf"))
        #expect(models.listsReasoning)
    }

    // MARK: load.md, unload.md, download.md, download-status.md

    @Test func loadRequestAndRepliesFollowLoadMd() throws {
        let request = LoadRequest(
            model: "openai/gpt-oss-20b", contextLength: 16384, flashAttention: true, echoLoadConfig: true)
        #expect(try sent(request) == value(DocumentedExamples.loadRequest))
        #expect(
            try decode(LoadResponse.self, DocumentedExamples.loadReply)
                == LoadResponse(
                    type: "llm", instanceId: "openai/gpt-oss-20b", loadTimeSeconds: 9.099, status: "loaded",
                    loadConfig: InstanceConfig(
                        contextLength: 16384, evalBatchSize: 512, flashAttention: true, numExperts: 4,
                        offloadKVCacheToGPU: true)))
        #expect(
            try decode(LoadResponse.self, DocumentedExamples.loadReplyWithoutConfig)
                == LoadResponse(
                    type: "llm", instanceId: "openai/gpt-oss-20b", loadTimeSeconds: 9.099, status: "loaded",
                    loadConfig: nil))
    }

    @Test func unloadFollowsUnloadMd() throws {
        #expect(try sent(UnloadRequest(instanceId: "openai/gpt-oss-20b")) == value(DocumentedExamples.unloadRequest))
        #expect(try value(DocumentedExamples.unloadReply) == .object(["instance_id": .string("openai/gpt-oss-20b")]))
    }

    @Test func downloadFollowsDownloadMdAndDownloadStatusMd() throws {
        #expect(try sent(DownloadRequest(model: "ibm/granite-4-micro")) == value(DocumentedExamples.downloadRequest))
        #expect(
            try decode(DownloadStatus.self, DocumentedExamples.downloadReply)
                == DownloadStatus(
                    jobId: "job_493c7c9ded", status: "downloading", totalSizeBytes: 2_279_145_003,
                    startedAt: "2025-10-03T15:33:23.496Z"))
        #expect(
            try decode(DownloadStatus.self, DocumentedExamples.downloadStatusReply)
                == DownloadStatus(
                    jobId: "job_493c7c9ded", status: "completed", totalSizeBytes: 2_279_145_003,
                    downloadedBytes: 2_279_145_003,
                    startedAt: "2025-10-03T15:33:23.496Z", completedAt: "2025-10-03T15:43:12.102Z"))
    }
}
