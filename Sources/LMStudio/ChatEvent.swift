/// One event of a streamed chat turn.
public enum ChatEvent: Sendable, Equatable {
    case chatStart(modelInstanceId: String?)
    /// The model is being loaded for this request.
    case modelLoadStart(modelInstanceId: String?)
    /// Load progress from 0 to 1.
    case modelLoadProgress(Double)
    case modelLoadEnd(loadTimeSeconds: Double?)
    case promptProcessingStart
    /// Prompt evaluation progress from 0 to 1.
    case promptProcessingProgress(Double)
    case promptProcessingEnd
    case reasoningStart
    case reasoningDelta(String)
    case reasoningEnd
    /// A tool call begins; calls carry no id and are matched in order.
    case toolCallStart(tool: String, provider: ProviderInfo?)
    case toolCallArguments(tool: String, arguments: JSONValue, provider: ProviderInfo?)
    case toolCallSuccess(tool: String, arguments: JSONValue, output: String, provider: ProviderInfo?)
    case toolCallFailure(reason: String, metadata: ToolCallFailureMetadata?)
    case messageStart
    case messageDelta(String)
    case messageEnd
    /// The server reports a problem; the stream still ends with `chatEnd`.
    case error(APIErrorPayload)
    /// The turn is complete; the only proof that it is.
    case chatEnd(ChatResult)
}
