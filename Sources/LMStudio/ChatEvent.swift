/// One event of a streamed chat turn.
public enum ChatEvent: Sendable, Equatable {
    /// The stream opened; names the answering instance.
    case chatStart(modelInstanceId: String?)
    /// The model is being loaded for this request.
    case modelLoadStart(modelInstanceId: String?)
    /// Load progress from 0 to 1.
    case modelLoadProgress(Double)
    /// The model finished loading.
    case modelLoadEnd(loadTimeSeconds: Double?)
    /// The server began evaluating the prompt.
    case promptProcessingStart
    /// Prompt evaluation progress from 0 to 1.
    case promptProcessingProgress(Double)
    /// Prompt evaluation finished.
    case promptProcessingEnd
    /// Reasoning text begins.
    case reasoningStart
    /// The next piece of reasoning text.
    case reasoningDelta(String)
    /// Reasoning text ends.
    case reasoningEnd
    /// A tool call begins; calls carry no id and are matched in order.
    case toolCallStart(tool: String, provider: ProviderInfo?)
    /// The arguments of the current tool call are known.
    /// `tool_call.name`, not documented (lmstudio-bug-tracker#1880): the model named the tool it calls and now writes
    /// the arguments, which may take long with no event (#1881).
    case toolCallName(tool: String)
    case toolCallArguments(tool: String, arguments: JSONValue, provider: ProviderInfo?)
    /// The current tool call returned `output`.
    case toolCallSuccess(tool: String, arguments: JSONValue, output: String, provider: ProviderInfo?)
    /// The current tool call could not run.
    case toolCallFailure(reason: String, metadata: ToolCallFailureMetadata?)
    /// Answer text begins.
    case messageStart
    /// The next piece of answer text.
    case messageDelta(String)
    /// Answer text ends.
    case messageEnd
    /// The server reports a problem; the stream still ends with `chatEnd`.
    case error(APIErrorPayload)
    /// The turn is complete; the only proof that it is.
    case chatEnd(ChatResult)
    /// An event that claims to be JSON but could not be read (invalid escapes or bytes, nesting too deep);
    /// what it carried is lost, so the reply cannot be whole. `reason` says what was wrong.
    case unreadable(reason: String)
}

extension ChatEvent {
    /// Whether it is a piece of answer or reasoning text (most of a stream).
    var isTextDelta: Bool {
        switch self {
        case .messageDelta, .reasoningDelta: true
        default: false
        }
    }
}
