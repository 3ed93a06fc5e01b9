import Foundation

/// The fault and scenario directives that shape one reply.
///
/// Syntax: tokens separated by commas and/or whitespace, each `name` or `name=value`;
/// later tokens override earlier ones. See `Simulator.directiveHelp`.
struct Faults: Sendable, Equatable {
    /// How streamed bytes are cut into socket writes.
    enum Split: Sendable, Equatable {
        /// One write per event, one byte per write, or seeded random sizes.
        case none, every, random
    }

    /// Close the connection after this many events.
    var dropAfter: Int?
    /// Send an `error` event of this type instead of output.
    var errorType: String?
    /// How the body is cut into socket writes.
    var split = Split.none
    /// Seed of `split=random`.
    var seed: UInt64 = 0x5EED
    /// Seconds of silence after the third answer delta.
    var stall: Double?
    /// The answer shows what the message asks for (`--demo`): a table, code, a list (`ScriptedReply.demo`).
    var demo = false
    /// Seconds the prompt takes to process: its progress events are spread over them, as a long prompt's are.
    var prefill: Double?
    /// Seconds of silence while the `tools` scenario's first call runs.
    var toolStall: Double?
    /// Close the connection while the `tools` scenario's first call runs.
    var toolDrop = false
    /// Seconds of silence after a `tool_call.name` event while the `tools` scenario's first call's arguments are
    /// written: not documented, observed on 0.4.12 (lmstudio-bug-tracker#1880, #1881).
    var toolName: Double?
    /// Reason even when the model would not.
    var reasoning = false
    /// Run the tool-call scenario.
    var tools = false
    /// Make this many successful tool calls, each followed by a line of answer, before the answer.
    var toolCalls: Int?
    /// Answer with about this many bytes of Markdown.
    var large: Int?
    /// The `large` text is paragraphs only (emphasis, code spans, links), not the mix of every block kind.
    var prose = false
    /// Characters per answer and reasoning delta; nil: a few, more for very long texts.
    var delta: Int?
    /// Answer and reasoning deltas per second, overriding the simulator's token delay: a model's speed, for
    /// measuring what streaming costs a second.
    var rate: Int?
    /// Put terminal control sequences in answer and reasoning.
    var escape = false
    /// Space JIT load progress out over about a second.
    var slowLoad = false
    /// Answer with this HTTP status and an error body.
    var status: Int?
    /// Send `data: [DONE]` after `chat.end`.
    var doneMarker = false
    /// `chat.end` carries a final answer that differs from the streamed deltas.
    var rewrite = false
    /// The streamed answer ends with a space, and `chat.end` carries it in NFD with a newline instead: it differs
    /// from what streamed only by whitespace at its end and Unicode normalisation, as a server that trims may.
    var finalWhitespace = false
    /// Reason with about this many bytes of text.
    var largeReasoning: Int?
    /// Send one answer delta a client cannot decode, after the first delta (its text stays in `chat.end`).
    var badEvent: BadEvent?
    /// Send an answer delta after `chat.end`.
    var afterEnd = false
    /// Answer `POST /api/v1/chat` with HTTP 200 and an HTML page, as a web server or captive portal would.
    var html = false
    /// Send the body gzip-compressed with `Content-Encoding: gzip`, as a proxy in front of LM Studio may.
    var gzip = false
    /// Refuse a request carrying `integrations` (HTTP 400 naming the parameter), as a server whose "Allow per-request
    /// MCPs" / "Allow calling servers from mcp.json" settings are off would. Assumed, neither documented nor observed:
    /// `mcp.mdx` says the settings are required, not how a refusal reads.
    var integrationsOff = false
    /// Refuse a request whose first integration has a field this server does not know: HTTP 400 with
    /// `code: "unrecognized_keys"` and `param: "integrations.0"`, as 0.4 servers older than a field answer (observed).
    var integrationKeys = false
    /// `message.start` and `message.end` with empty `data:` lines, and `prompt_processing.end` twice, as 0.4 servers were
    /// seen to send (not documented).
    var sparseEvents = false
    /// A prompt longer than the context gets an empty answer with `input_tokens` at the context length, not an error,
    /// as GGUF models on 0.4 were reported to answer (lmstudio-bug-tracker#2339).
    var overflowEmpty = false
    /// The model's reasoning written into the answer inside `<think>…</think>`, as a model whose reasoning the server
    /// does not separate answers: no reasoning events, and `chat.end` carries it in the message too.
    var thinkTags = false
    /// End the stream with the `mcp_connection_error` LM Studio 0.4.15 and later send for an MCP server URL at a
    /// local or private address (its message as lmstudio-bug-tracker#1993 quotes it; that it is a stream error event is
    /// assumed).
    var mcpPrivate = false
    /// The hostile `chat.end` directives (`final-drop`, `overflow-stats`).
    var hostile = HostileScenarios()

    /// How the `bad-event` delta is malformed.
    enum BadEvent: String {
        /// A lone `\ud800` escape in the content.
        case surrogate
        /// A raw NUL byte inside the content string.
        case nul
        /// Arrays nested 1,000 deep beside the content.
        case nesting
    }

    /// Applies the directives in `text` on top of these.
    mutating func apply(_ text: String) throws(SimulatorError) {
        let tokens = text.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
        for token in tokens {
            let parts = token.split(separator: "=", maxSplits: 1).map(String.init)
            let name = parts[0].lowercased()
            let value = parts.count > 1 ? parts[1] : nil
            try apply(name: name, value: value, token: token)
        }
    }

    private mutating func apply(name: String, value: String?, token: String) throws(SimulatorError) {
        func int(_ range: ClosedRange<Int>) throws(SimulatorError) -> Int {
            guard let value, let number = Int(value), range.contains(number) else { throw .invalidDirective(token) }
            return number
        }
        func flag() throws(SimulatorError) -> Bool {
            guard value == nil else { throw .invalidDirective(token) }
            return true
        }
        switch name {
        case "drop-after": dropAfter = try int(0...1_000_000)
        case "error":
            let type = value ?? "internal_error"
            guard Self.errorTypes.contains(type) else { throw .invalidDirective(token) }
            errorType = type
        case "mcp-error": errorType = try flag() ? "mcp_connection_error" : nil
        case "plugin-error": errorType = try flag() ? "plugin_connection_error" : nil
        case "split":
            switch value {
            case "every": split = .every
            case "random": split = .random
            case "none": split = .none
            default: throw .invalidDirective(token)
            }
        case "seed": seed = UInt64(try int(0...Int.max))
        case "tool-stall":
            guard let value, let seconds = Double(value), seconds >= 0, seconds <= 3600 else {
                throw .invalidDirective(token)
            }
            toolStall = seconds
        case "tool-drop": toolDrop = try flag()
        case "tool-name":
            guard let value, let seconds = Double(value), seconds >= 0, seconds <= 3600 else {
                throw .invalidDirective(token)
            }
            toolName = seconds
        case "prefill":
            guard let value, let seconds = Double(value), seconds >= 0, seconds <= 3600 else {
                throw .invalidDirective(token)
            }
            prefill = seconds
        case "stall":
            guard let value, let seconds = Double(value), seconds >= 0, seconds <= 3600 else {
                throw .invalidDirective(token)
            }
            stall = seconds
        case "reasoning": reasoning = try flag()
        case "tools": tools = try flag()
        case "tool-calls": toolCalls = try int(1...100_000)
        case "large": large = try int(1...400_000_000)
        case "prose": prose = try flag()
        case "delta": delta = try int(1...1_000_000)
        case "rate": rate = try int(1...100_000)
        case "escape": escape = try flag()
        case "slow-load": slowLoad = try flag()
        case "status": status = try int(100...599)
        case "done-marker": doneMarker = try flag()
        case "rewrite": rewrite = try flag()
        case "final-whitespace": finalWhitespace = try flag()
        case "large-reasoning": largeReasoning = try int(1...400_000_000)
        case "bad-event":
            guard let value, let kind = BadEvent(rawValue: value) else { throw .invalidDirective(token) }
            badEvent = kind
        case "after-end": afterEnd = try flag()
        case "html": html = try flag()
        case "gzip": gzip = try flag()
        case "integrations-off": integrationsOff = try flag()
        case "integration-keys": integrationKeys = try flag()
        case "sparse-events": sparseEvents = try flag()
        case "overflow-empty": overflowEmpty = try flag()
        case "think-tags": thinkTags = try flag()
        case "mcp-private": mcpPrivate = try flag()
        default: guard hostile.apply(name: name, value: value) else { throw .invalidDirective(token) }
        }
    }

    /// The `error` types the streaming API documents.
    static let errorTypes: Set<String> = [
        "invalid_request", "unknown", "mcp_connection_error", "plugin_connection_error",
        "not_implemented", "model_not_found", "job_not_found", "internal_error"
    ]

    /// Removes every `[[sim:…]]` directive (and the whitespace right after it) from `text`, applying each.
    mutating func extract(from text: String) throws(SimulatorError) -> String {
        var remaining = Substring(text)
        var kept = ""
        while let open = remaining.range(of: "[[sim:") {
            guard let close = remaining[open.upperBound...].range(of: "]]") else { break }
            kept += remaining[..<open.lowerBound]
            try apply(String(remaining[open.upperBound..<close.lowerBound]))
            remaining = remaining[close.upperBound...]
            remaining = remaining.drop(while: { $0.isWhitespace })
        }
        kept += remaining
        return kept
    }
}

extension Faults {
    /// `--demo`: what a message asks for in plain words, as the directives would: reasoning for "think", "reason" or
    /// "why"; a tool call for "search", "look" or "tool"; a long answer for "long", "essay" or "detailed"; and an
    /// answer with the blocks it names (`ScriptedReply.demo`).
    mutating func followDemoRequest(_ input: String) {
        let words = Set(input.lowercased().split { !$0.isLetter }.map(String.init))
        demo = true
        if !words.isDisjoint(with: ["think", "reason", "reasoning", "why"]) { reasoning = true }
        if !words.isDisjoint(with: ["search", "look", "tool", "tools"]) { tools = true }
        if !words.isDisjoint(with: ["long", "essay", "detailed"]), large == nil {
            large = 6_000
            prose = true
            // Larger deltas, so the long answer streams in seconds at the demo's token delay.
            delta = delta ?? 24
        }
    }
}
