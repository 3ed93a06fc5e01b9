import Testing

@testable import LMStudio

struct ChatEventDecoderTests {
    let decoder = ChatEventDecoder()
    let plugin = ProviderInfo(type: "plugin", pluginId: "mcp/playwright")

    @Test func recordedStreamDecodesToChatEvents() throws {
        let events = try parse([Array(recordedChatStream.utf8)[...]]).compactMap(decoder.decode)
        let arguments = JSONValue.object(["url": .string("https://example.com")])
        #expect(
            events == [
                .chatStart(modelInstanceId: "qwen/qwen3-4b"),
                .reasoningStart,
                .reasoningDelta("Let me think… "),
                .reasoningEnd,
                .toolCallStart(tool: "browser_navigate", provider: plugin),
                .toolCallArguments(tool: "browser_navigate", arguments: arguments, provider: plugin),
                .toolCallSuccess(
                    tool: "browser_navigate", arguments: arguments, output: #"[{"type":"text","text":"ok"}]"#,
                    provider: plugin),
                .messageStart,
                .messageDelta("héllo 日本 👩‍💻"),
                .messageDelta("!\n"),
                .messageEnd,
                .chatEnd(
                    ChatResult(
                        modelInstanceId: "qwen/qwen3-4b", output: [.message("héllo 日本 👩‍💻!\n")],
                        stats: ChatStats(inputTokens: 12, totalOutputTokens: 5, tokensPerSecond: 41.5),
                        responseId: "resp_abc"))
            ])
    }

    @Test(arguments: [
        (#"{"type":"model_load.start","model_instance_id":"m:2"}"#, ChatEvent.modelLoadStart(modelInstanceId: "m:2")),
        (#"{"type":"model_load.progress","model_instance_id":"m","progress":0.25}"#, .modelLoadProgress(0.25)),
        (
            #"{"type":"model_load.end","model_instance_id":"m","load_time_seconds":3.5}"#,
            .modelLoadEnd(loadTimeSeconds: 3.5)
        ),
        (#"{"type":"prompt_processing.start"}"#, .promptProcessingStart),
        (#"{"type":"prompt_processing.progress","progress":1}"#, .promptProcessingProgress(1)),
        (#"{"type":"prompt_processing.end"}"#, .promptProcessingEnd),
        (
            #"{"type":"tool_call.failure","reason":"Unknown tool","metadata":{"type":"invalid_name","tool_name":"nope"}}"#,
            .toolCallFailure(
                reason: "Unknown tool", metadata: ToolCallFailureMetadata(type: "invalid_name", toolName: "nope"))
        ),
        (
            #"{"type":"error","error":{"type":"mcp_connection_error","message":"MCP server down","code":"x"}}"#,
            .error(APIErrorPayload(type: "mcp_connection_error", message: "MCP server down", code: "x"))
        ),
        // Servers that send no error object: the explanation they give is the one shown.
        (
            #"{"type":"error","message":"Model crashed while generating"}"#,
            .error(APIErrorPayload(message: "Model crashed while generating"))
        ),
        (
            #"{"type":"error","error":"Context length exceeded"}"#,
            .error(APIErrorPayload(message: "Context length exceeded"))
        ),
        (
            #"{"type":"tool_call.success","tool":"t","arguments":{},"output":{"n":1}}"#,
            .toolCallSuccess(tool: "t", arguments: .object([:]), output: #"{"n":1}"#, provider: nil)
        )
    ])
    func eachEventKindDecodes(data: String, expected: ChatEvent) {
        #expect(decoder.decode(SSEEvent(data: data)) == expected)
    }

    @Test func eventNameIsUsedWhenTheTypeFieldIsMissing() {
        #expect(decoder.decode(SSEEvent(name: "message.delta", data: #"{"content":"hi"}"#)) == .messageDelta("hi"))
    }

    /// JSON the decoder cannot read (a lone surrogate, a raw NUL in a string, nesting too deep, a cut object) is
    /// reported, naming the event, rather than dropped.
    @Test(arguments: [
        #"{"type":"message.delta","content":"a\ud800b"}"#, "{\"type\":\"message.delta\",\"content\":\"a\u{0}b\"}",
        #"{"type":"message.delta","content":"x","extra":"# + String(repeating: "[", count: 1000)
            + String(repeating: "]", count: 1000) + "}",
        #"{"type":"message.delta","content":"cut"#
    ])
    func unreadableEventsAreReportedNotDropped(data: String) {
        guard case .unreadable(let reason)? = decoder.decode(SSEEvent(name: "message.delta", data: data)) else {
            Issue.record("not reported: \(data.prefix(60))")
            return
        }
        #expect(reason.hasPrefix("a message.delta event could not be read ("))
    }

    @Test(arguments: ["[DONE]", "", "not json", #"{"type":"future.event","x":1}"#, #"{"type":42}"#])
    func unknownOrNonJSONPayloadsAreSkipped(data: String) {
        #expect(decoder.decode(SSEEvent(name: nil, data: data)) == nil)
    }
}
