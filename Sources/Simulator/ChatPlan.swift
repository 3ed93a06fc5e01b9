/// The events of one chat reply, in wire order, plus the final result object.
struct ChatPlan {
    /// One thing the stream does.
    enum Step {
        /// An SSE event: name and its JSON data (which carries the same `type`).
        case event(String, String)
        /// Send nothing for this many seconds.
        case pause(Double)
        /// Close the connection here, mid-stream.
        case close
    }

    /// Everything decided about a turn before its events are written.
    struct Turn {
        /// The instance that answers (`key` or `key:N`).
        var instanceID: String
        /// True when this request loads the instance, adding `model_load.*` events.
        var jitLoad: Bool
        /// True when reasoning events come before the answer.
        var reasoning: Bool
        /// The user text with directives removed.
        var input: String
        /// The final message text.
        var answer: String
        /// Estimated tokens of the whole chain plus this input.
        var inputTokens: Int
        /// The `response_id` of a stored turn.
        var responseID: String?
        /// An `error` event (type, message, code) that replaces the output.
        var error: (type: String, message: String, code: String?)?
        /// The directives in force for this reply.
        var faults: Faults
        /// Seconds between deltas.
        var tokenDelay: Double
        /// Seconds between load progress events under `slow-load`.
        var loadStep: Double
    }

    private(set) var steps: [Step] = []
    private(set) var result: [String: Any] = [:]
    private var output: [[String: Any]] = []
    private var streamedCharacters = 0
    private var reasoningCharacters = 0

    /// Lays out every event of `turn` and the `result` that `chat.end` carries.
    init(_ turn: Turn) {
        let instance = turn.instanceID
        event("chat.start", ["model_instance_id": instance])
        if turn.jitLoad {
            let count = turn.faults.slowLoad ? 20 : 4
            event("model_load.start", ["model_instance_id": instance])
            for step in 1...count {
                if turn.faults.slowLoad { steps.append(.pause(turn.loadStep)) }
                event("model_load.progress", ["model_instance_id": instance, "progress": Double(step) / Double(count)])
            }
            event("model_load.end", ["model_instance_id": instance, "load_time_seconds": 1.25])
        }
        event("prompt_processing.start", [:])
        for progress in [0.25, 0.5, 1.0] {
            if let prefill = turn.faults.prefill { steps.append(.pause(prefill / 3)) }
            event("prompt_processing.progress", ["progress": progress])
        }
        event("prompt_processing.end", [:])
        if turn.faults.sparseEvents { event("prompt_processing.end", [:]) }
        if let error = turn.error {
            var inner: [String: Any] = ["type": error.type, "message": error.message]
            if let code = error.code { inner["code"] = code }
            event("error", ["error": inner])
        } else {
            if turn.reasoning {
                let text = ScriptedReply.reasoning(for: turn.input, faults: turn.faults)
                event("reasoning.start", [:])
                deltas("reasoning.delta", text, size: turn.faults.delta, delay: turn.tokenDelay)
                event("reasoning.end", [:])
                output.append(["type": "reasoning", "content": text])
                reasoningCharacters = text.count
            }
            if turn.faults.tools {
                toolSuccess(stall: turn.faults.toolStall, drops: turn.faults.toolDrop, naming: turn.faults.toolName)
                message(ScriptedReply.toolPreamble, turn: turn, stall: false)
                toolFailure()
            }
            if let count = turn.faults.toolCalls { toolSeries(count) }
            message(turn.answer, turn: turn, stall: true)
        }
        var stats: [String: Any] = [
            "input_tokens": turn.inputTokens,
            "total_output_tokens": (streamedCharacters + 3) / 4,
            "reasoning_output_tokens": (reasoningCharacters + 3) / 4,
            "tokens_per_second": 42.5,
            "time_to_first_token_seconds": 0.125
        ]
        if turn.jitLoad { stats["model_load_time_seconds"] = 1.25 }
        result = ["model_instance_id": instance, "output": output, "stats": stats]
        if let id = turn.responseID { result["response_id"] = id }
        if turn.faults.hostile.isActive {
            steps.append(.event("chat.end", turn.faults.hostile.chatEnd(result)))
        } else {
            event("chat.end", ["result": result])
        }
        if turn.faults.afterEnd { event("message.delta", ["content": " (sent after chat.end)"]) }
    }

    /// A `message.delta` no JSON parser accepts, of the `bad-event` kind.
    private static func badDelta(_ kind: Faults.BadEvent) -> String {
        switch kind {
        case .surrogate: #"{"type":"message.delta","content":"lost \ud800 text"}"#
        case .nul: "{\"type\":\"message.delta\",\"content\":\"lost \u{0} text\"}"
        case .nesting:
            #"{"type":"message.delta","content":"lost text","extra":"# + String(repeating: "[", count: 1000)
                + String(repeating: "]", count: 1000) + "}"
        }
    }

    private mutating func event(_ name: String, _ payload: [String: Any]) {
        var json = payload
        json["type"] = name
        steps.append(.event(name, JSON.encode(json)))
    }

    /// `message.start` or `message.end`: under `sparse-events` with an empty `data:` line, as 0.4 servers were seen to send.
    private mutating func marker(_ name: String, sparse: Bool) {
        if sparse { steps.append(.event(name, "")) } else { event(name, [:]) }
    }

    /// Cuts `text` into deltas of `size` characters, by default a few (more for very long texts, at most ~4000 deltas).
    private mutating func deltas(
        _ name: String, _ text: String, size: Int?, delay: Double, stallAfter: Int? = nil, stall: Double? = nil,
        badEvent: Faults.BadEvent? = nil
    ) {
        let characters = Array(text)
        let size = size ?? max(4, characters.count / 4000)
        var index = 0
        var sent = 0
        while index < characters.count {
            let piece = String(characters[index..<min(index + size, characters.count)])
            event(name, ["content": piece])
            index += size
            sent += 1
            if sent == 1, name == "message.delta", let bad = badEvent { steps.append(.event(name, Self.badDelta(bad))) }
            if delay > 0 { steps.append(.pause(delay)) }
            if let stallAfter, let stall, sent == stallAfter || (index >= characters.count && sent < stallAfter) {
                steps.append(.pause(stall))
            }
        }
        streamedCharacters += characters.count
    }

    private mutating func message(_ text: String, turn: Turn, stall: Bool) {
        marker("message.start", sparse: turn.faults.sparseEvents)
        deltas(
            "message.delta", stall ? ScriptedReply.streamed(text, faults: turn.faults) : text, size: turn.faults.delta,
            delay: turn.tokenDelay, stallAfter: stall ? 3 : nil, stall: turn.faults.stall,
            badEvent: stall ? turn.faults.badEvent : nil)
        marker("message.end", sparse: turn.faults.sparseEvents)
        output.append(["type": "message", "content": stall ? ScriptedReply.final(text, faults: turn.faults) : text])
    }

    /// The `search_docs` call of the `tools` scenario; `stall` seconds of silence while it runs, or (`drops`) the
    /// connection closed then; with `naming`, a `tool_call.name` event and that many seconds before its arguments.
    private mutating func toolSuccess(stall: Double?, drops: Bool, naming: Double?) {
        let provider: [String: Any] = ["type": "plugin", "plugin_id": "mcp/docs"]
        let arguments: [String: Any] = ["query": "sse"]
        event("tool_call.start", ["tool": "search_docs", "provider_info": provider])
        if let naming {
            // Its shape is assumed (the report names the event, not its fields): the tool as `tool_call.start` has it.
            event("tool_call.name", ["tool": "search_docs", "provider_info": provider])
            steps.append(.pause(naming))
        }
        event("tool_call.arguments", ["tool": "search_docs", "arguments": arguments, "provider_info": provider])
        if let stall { steps.append(.pause(stall)) }
        if drops { steps.append(.close) }
        event(
            "tool_call.success",
            [
                "tool": "search_docs", "arguments": arguments, "output": ScriptedReply.toolOutput,
                "provider_info": provider
            ])
        output.append([
            "type": "tool_call", "tool": "search_docs", "arguments": arguments, "output": ScriptedReply.toolOutput,
            "provider_info": provider
        ])
    }

    /// `count` successful calls, each followed by one line of answer naming it (the `tool-calls` directive).
    private mutating func toolSeries(_ count: Int) {
        for number in 1...count {
            let arguments: [String: Any] = ["query": "sse \(number)", "limit": 5]
            event("tool_call.start", ["tool": "search_docs"])
            event("tool_call.success", ["tool": "search_docs", "arguments": arguments, "output": "result \(number)"])
            output.append([
                "type": "tool_call", "tool": "search_docs", "arguments": arguments, "output": "result \(number)"
            ])
            event("message.start", [:])
            event("message.delta", ["content": "Call \(number) done.\n\n"])
            event("message.end", [:])
            output.append(["type": "message", "content": "Call \(number) done.\n\n"])
            streamedCharacters += "Call \(number) done.\n\n".count
        }
    }

    private mutating func toolFailure() {
        let provider: [String: Any] = ["type": "plugin", "plugin_id": "mcp/docs"]
        // `arguments` and `provider_info` are "only present for invalid_arguments errors" (`streaming-events.md`).
        let metadata: [String: Any] = ["type": "invalid_name", "tool_name": "open_browser"]
        let reason = "Cannot find tool open_browser"
        event("tool_call.start", ["tool": "open_browser", "provider_info": provider])
        event("tool_call.failure", ["reason": reason, "metadata": metadata])
        output.append(["type": "invalid_tool_call", "reason": reason, "metadata": metadata])
    }
}
