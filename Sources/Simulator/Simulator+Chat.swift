import Foundation

extension Simulator {
    /// The top-level fields `POST /api/v1/chat` accepts.
    static let chatKeys: Set<String> = [
        "model", "input", "system_prompt", "integrations", "stream", "temperature", "top_p", "top_k",
        "min_p", "repeat_penalty", "max_output_tokens", "reasoning", "context_length", "store", "previous_response_id"
    ]

    /// Answers `POST /api/v1/chat`, streamed or not, with the directives in force.
    func chat(_ request: HTTPRequest, writer: inout ResponseWriter) {
        var faults = defaultFaults
        let prepared: Result<(ChatPlan, stream: Bool), ReplyError>
        do {
            try faults.apply(request.headers["x-sim-faults"] ?? "")
            prepared = try prepareChat(request, faults: &faults)
        } catch {
            writer.respond(status: 400, body: JSON.error(type: "invalid_request", message: error.description))
            return
        }
        writer = ResponseWriter(fd: writer.fd, faults: faults)
        let plan: ChatPlan
        let stream: Bool
        switch prepared {
        case .failure(let error):
            writer.respond(status: error.reply.status, body: error.reply.body)
            return
        case .success(let value):
            (plan, stream) = value
        }
        if faults.html {
            writer.respond(
                status: 200, contentType: "text/html; charset=utf-8",
                body:
                    "<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body><p>Please sign in.</p></body></html>\n"
            )
        } else if stream {
            send(plan, faults: faults, writer: &writer)
        } else {
            if faults.dropAfter != nil { return }
            if let stall = faults.stall, !stopSignal.pause(stall) { return }
            writer.respond(status: 200, body: JSON.encode(plan.result))
        }
    }

    private func send(_ plan: ChatPlan, faults: Faults, writer: inout ResponseWriter) {
        writer.startStream()
        var events = 0
        for step in plan.steps {
            switch step {
            case .event(let name, let data):
                if let limit = faults.dropAfter, events >= limit {
                    writer.flush()
                    return
                }
                writer.stream("event: \(name)\ndata: \(data)\n\n")
                options.eventSent?(name)
                events += 1
                if events % 25 == 1 { writer.stream(": keep-alive\n\n") }
            case .pause(let seconds):
                writer.flush()
                guard stopSignal.pause(seconds) else { return }
            case .close:
                writer.flush()
                return
            }
            guard writer.alive else { return }
        }
        if faults.doneMarker { writer.stream("data: [DONE]\n\n") }
        writer.finishStream()
    }

    /// Validates a chat request and decides its reply; errors before the stream starts come back as `.failure`.
    private func prepareChat(_ request: HTTPRequest, faults: inout Faults) throws(SimulatorError) -> Result<
        (ChatPlan, stream: Bool), ReplyError
    > {
        let json: [String: Any]
        switch strictBody(request, allowed: Self.chatKeys) {
        case .success(let body): json = body
        case .failure(let error): return .failure(error)
        }
        for (key, value) in json.sorted(by: { $0.key < $1.key }) {
            if let expected = Self.expectedType(of: key, value) {
                return .failure(
                    ReplyError(
                        .error(
                            400, type: "invalid_request", message: "Expected \(expected) for '\(key)'",
                            code: "invalid_type", param: key)))
            }
            if let refusal = Self.rangeRefusal(of: key, value) { return .failure(refusal) }
        }
        let parsedInput: (text: String, images: Int)
        switch Self.parseInput(json["input"], textType: options.inputTextType) {
        case .success(let value): parsedInput = value
        case .failure(let error): return .failure(error)
        }
        let input = try faults.extract(from: parsedInput.text).trimmingCharacters(in: .whitespacesAndNewlines)
        if options.answersWhatIsAsked { faults.followDemoRequest(input) }
        if let status = faults.status {
            return .failure(
                ReplyError(.error(status, type: "internal_error", message: "Simulated failure (status=\(status))")))
        }
        if faults.integrationsOff, json["integrations"] != nil {
            return .failure(
                ReplyError(
                    .error(
                        400, type: "invalid_request", message: "Integrations are not allowed by the server settings",
                        param: "integrations")))
        }
        if faults.integrationKeys, json["integrations"] != nil {
            return .failure(
                ReplyError(
                    .error(
                        400, type: "invalid_request", message: "Unrecognized key(s) in object: 'allowed_tools'",
                        code: "unrecognized_keys", param: "integrations.0")))
        }
        guard let modelName = json["model"] as? String else {
            return .failure(
                ReplyError(
                    .error(
                        400, type: "invalid_request", message: "Required: 'model' must be a string",
                        code: "invalid_type", param: "model")))
        }
        let previousID = json["previous_response_id"] as? String
        let systemPrompt = json["system_prompt"] as? String
        // Observed, not documented: a server answered HTTP 500 to a follow-up that carried a system prompt.
        if previousID != nil, systemPrompt != nil {
            return .failure(
                ReplyError(
                    .error(
                        500, type: "internal_error",
                        message: "Cannot set system_prompt when continuing a conversation with previous_response_id")))
        }
        let stream = json["stream"] as? Bool ?? false
        let store = json["store"] as? Bool ?? true
        let requestedContext = json["context_length"] as? Int
        let requestedReasoning = json["reasoning"] as? String
        let tokenDelay = options.tokenDelay
        let loadStep = slowLoadStep
        let autoEvict = options.autoEvict
        return state.withLock { state -> Result<(ChatPlan, stream: Bool), ReplyError> in
            let target: (model: ServerState.Model, instance: ServerState.Instance?)
            if let model = state.model(modelName) {
                let loaded = state.instances.filter { $0.key == model.key }
                if let requestedContext {
                    target = (model, loaded.first { $0.contextLength == requestedContext })
                } else {
                    target = (model, loaded.first)
                }
            } else if let instance = state.instances.first(where: { $0.id == modelName }),
                let model = state.model(instance.key)
            {
                target = (model, instance)
            } else {
                return .failure(
                    ReplyError(
                        .error(
                            404, type: "model_not_found", message: "Model '\(modelName)' not found",
                            code: "model_not_found", param: "model")))
            }
            let model = target.model
            guard model.type == "llm" else {
                return .failure(
                    ReplyError(
                        .error(
                            400, type: "invalid_request",
                            message: "Model '\(model.key)' is an embedding model and cannot chat",
                            code: "invalid_value", param: "model")))
            }
            if let requestedReasoning, !(model.reasoningOptions ?? []).contains(requestedReasoning) {
                let allowed = (model.reasoningOptions ?? []).map { "'\($0)'" }.joined(separator: " | ")
                let message =
                    allowed.isEmpty
                    ? "Model '\(model.key)' does not support reasoning"
                    : "Invalid option '\(requestedReasoning)' for reasoning: expected \(allowed)"
                return .failure(
                    ReplyError(
                        .error(
                            400, type: "invalid_request", message: message, code: "invalid_value", param: "reasoning")))
            }
            if parsedInput.images > 0, !model.vision {
                return .failure(
                    ReplyError(
                        .error(
                            400, type: "invalid_request", message: "Model '\(model.key)' does not support image input",
                            code: "invalid_value", param: "input")))
            }
            var chain = ServerState.Chain(inputs: [], characters: 0)
            if let previousID {
                guard let known = state.chains[previousID] else {
                    return .failure(
                        ReplyError(
                            .error(
                                400, type: "invalid_request", message: "Response with id '\(previousID)' not found",
                                code: "invalid_value", param: "previous_response_id")))
                }
                chain = known
            }
            let context = requestedContext ?? 4096
            if target.instance == nil, context < 1 || context > model.maxContextLength {
                return .failure(
                    ReplyError(
                        .error(
                            400, type: "invalid_request",
                            message:
                                "context_length \(context) is outside 1…\(model.maxContextLength) for '\(model.key)'",
                            code: "invalid_value", param: "context_length")))
            }
            let instance: ServerState.Instance
            if let loaded = target.instance {
                instance = loaded
            } else {
                if autoEvict { state.instances.removeAll { $0.jit } }
                instance = state.load(key: model.key, contextLength: context, jit: true)
            }
            let promptCharacters = chain.characters + (systemPrompt?.count ?? 0) + input.count
            var inputTokens = max(1, (promptCharacters + 3) / 4)
            var error: (type: String, message: String, code: String?)?
            let silentOverflow = faults.overflowEmpty && inputTokens > instance.contextLength
            if silentOverflow {
                inputTokens = instance.contextLength
            } else if inputTokens > instance.contextLength {
                let message =
                    "The prompt (about \(inputTokens) tokens) is longer than the context length of '\(instance.id)' (\(instance.contextLength) tokens)"
                guard stream else {
                    return .failure(
                        ReplyError(
                            .error(400, type: "invalid_request", message: message, code: "context_length_exceeded")))
                }
                error = ("invalid_request", message, "context_length_exceeded")
            } else if let type = faults.errorType {
                guard stream else {
                    let status =
                        type == "model_not_found" || type == "job_not_found"
                        ? 404 : type == "invalid_request" ? 400 : 500
                    return .failure(
                        ReplyError(.error(status, type: type, message: Self.faultMessage(type), code: type)))
                }
                error = (type, Self.faultMessage(type), type)
            } else if faults.mcpPrivate {
                error = (
                    "mcp_connection_error",
                    "Unable to connect to remote MCP server 'docs' at url 'http://localhost:21776/sse'. URL resolves "
                        + "to a non-public address. We only allow public addresses for dynamic remote MCP connections.",
                    nil
                )
            }
            let reasoningValue = requestedReasoning ?? model.reasoningDefault ?? "off"
            var answer =
                silentOverflow
                ? ""
                : ScriptedReply.answer(
                    to: input, firstInput: chain.inputs.first, images: parsedInput.images, faults: faults)
            if faults.thinkTags {
                answer = "<think>" + ScriptedReply.reasoning(for: input, faults: faults) + "</think>\n\n" + answer
            }
            var responseID: String?
            if store, error == nil {
                let id =
                    "resp_" + (0..<3).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max)) }.joined()
                state.chains[id] = ServerState.Chain(
                    inputs: chain.inputs + [input], characters: promptCharacters + answer.count)
                responseID = id
            }
            let turn = ChatPlan.Turn(
                instanceID: instance.id,
                jitLoad: target.instance == nil,
                reasoning: !silentOverflow && !faults.thinkTags
                    && (faults.reasoning || faults.tools || faults.escape
                        || (model.reasoningOptions != nil && reasoningValue != "off")),
                input: input,
                answer: answer,
                inputTokens: inputTokens,
                responseID: responseID,
                error: error,
                faults: faults,
                tokenDelay: faults.rate.map { 1 / Double($0) } ?? tokenDelay,
                loadStep: loadStep
            )
            return .success((ChatPlan(turn), stream))
        }
    }

    /// The JSON type `key` needs when `value` does not have it; nil when it fits (or `input`, checked apart).
    private static func expectedType(of key: String, _ value: Any) -> String? {
        switch key {
        case "model", "system_prompt", "reasoning", "previous_response_id": value is String ? nil : "string"
        case "stream", "store": value is Bool ? nil : "boolean"
        case "context_length", "top_k", "max_output_tokens": value is Int && !(value is String) ? nil : "integer"
        case "temperature", "top_p", "min_p", "repeat_penalty": value is Double ? nil : "number"
        case "integrations": value is [Any] ? nil : "array"
        default: nil
        }
    }

    /// The documented ranges of the sampling numbers (`chat.md`: temperature, top_p and min_p in [0,1]).
    static let samplingRanges: [String: ClosedRange<Double>] = ["temperature": 0...1, "top_p": 0...1, "min_p": 0...1]

    /// The refusal of a sampling number outside its documented range.
    ///
    /// The ranges are documented; the refusal is not: its wording and code are a guess in the style of the
    /// server's other validation messages.
    private static func rangeRefusal(of key: String, _ value: Any) -> ReplyError? {
        guard let range = samplingRanges[key], let number = value as? Double, !range.contains(number) else {
            return nil
        }
        let bound =
            number < range.lowerBound
            ? "greater than or equal to \(String(format: "%g", range.lowerBound))"
            : "less than or equal to \(String(format: "%g", range.upperBound))"
        return ReplyError(
            .error(
                400, type: "invalid_request", message: "Number must be \(bound)",
                code: number < range.lowerBound ? "too_small" : "too_big", param: key))
    }

    private static func faultMessage(_ type: String) -> String {
        switch type {
        case "mcp_connection_error": "Failed to connect to MCP server 'mcp/docs': connection refused"
        case "plugin_connection_error": "Failed to connect to plugin 'mcp/docs'"
        case "model_not_found": "Model not found (simulated)"
        default: "Simulated server error (\(type))"
        }
    }

    /// The text of `input` (a string, or text items joined by blank lines) and how many images it carries.
    ///
    /// `textType` is the one spelling of a text item accepted: the docs give `message` in the reference and `text`
    /// in the example (`chat.md`); servers have been observed to accept only `text`, with the refusal below.
    private static func parseInput(_ value: Any?, textType: String) -> Result<(text: String, images: Int), ReplyError> {
        if let text = value as? String { return .success((text, 0)) }
        guard let items = value as? [Any] else {
            return .failure(
                ReplyError(
                    .error(
                        400, type: "invalid_request",
                        message: "Required: 'input' must be a string or an array of items", code: "invalid_type",
                        param: "input")))
        }
        var texts: [String] = []
        var images = 0
        for (index, element) in items.enumerated() {
            let item = element as? [String: Any] ?? [:]
            switch item["type"] as? String {
            case textType?:
                guard let content = item["content"] as? String else {
                    return .failure(
                        ReplyError(
                            .error(
                                400, type: "invalid_request", message: "Required: 'content' must be a string",
                                code: "invalid_type", param: "input.\(index).content")))
                }
                texts.append(content)
            case "image":
                guard let url = item["data_url"] as? String, url.hasPrefix("data:image/") else {
                    return .failure(
                        ReplyError(
                            .error(
                                400, type: "invalid_request",
                                message: "Required: 'data_url' must be a data:image/… URL", code: "invalid_type",
                                param: "input.\(index).data_url")))
                }
                images += 1
            default:
                return .failure(
                    ReplyError(
                        .error(
                            400, type: "invalid_request",
                            message: "Invalid discriminator value. Expected '\(textType)' | 'image'",
                            code: "invalid_union_discriminator", param: "input.\(index).type")))
            }
        }
        return .success((texts.joined(separator: "\n\n"), images))
    }
}
