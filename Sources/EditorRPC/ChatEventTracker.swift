import Chat
import LMStudio

/// Turns a reply's successive display snapshots into `chat/event` payloads: stage progress, text deltas, tool calls, errors.
///
/// Pure and incremental: each snapshot yields only what changed since the previous one.
public struct ChatEventTracker: Sendable {
    /// Every `type` a `chat/event` can carry.
    public static let eventTypes = [
        "model_load.progress", "prompt_processing.progress", "reasoning.delta",
        "tool_call.start", "tool_call.success", "tool_call.failure", "message.delta", "error",
    ]

    private var answerBytes = 0
    private var reasoningCharacters = 0
    private var stage: ReplyState.Stage?
    private var toolCalls: [ToolCallState] = []
    private var errors = 0

    /// A tracker for a new reply.
    public init() {}

    /// The events (type and fields) that take a client from the previous snapshot to `snapshot`.
    public mutating func events(for snapshot: DisplaySnapshot) -> [(type: String, fields: [String: JSONValue])] {
        var events: [(type: String, fields: [String: JSONValue])] = []
        if snapshot.stage != stage {
            switch snapshot.stage {
            case .loadingModel(let progress):
                events.append(("model_load.progress", ["progress": .number(progress),
                                                       "modelInstanceId": snapshot.loadingModelInstanceId.map(JSONValue.string) ?? .null]))
            case .processingPrompt(let progress):
                events.append(("prompt_processing.progress", ["progress": .number(progress)]))
            default:
                break
            }
            stage = snapshot.stage
        }
        if snapshot.reasoningCharacterCount > reasoningCharacters {
            let added = snapshot.reasoningCharacterCount - reasoningCharacters
            let preview = snapshot.reasoningPreview
            // The preview keeps only the tail; when more arrived than it holds, the gap is reported.
            let text = added <= preview.count ? String(preview.suffix(added)) : preview
            events.append(("reasoning.delta", ["text": .string(text), "skipped": .integer(max(0, added - preview.count))]))
            reasoningCharacters = snapshot.reasoningCharacterCount
        }
        for (index, call) in snapshot.toolCalls.enumerated() {
            let previous = index < toolCalls.count ? toolCalls[index] : nil
            if previous == nil {
                events.append(("tool_call.start", Self.fields(call, index: index)))
            }
            if previous?.status != call.status {
                switch call.status {
                case .running: break
                case .succeeded: events.append(("tool_call.success", Self.fields(call, index: index)))
                case .failed: events.append(("tool_call.failure", Self.fields(call, index: index)))
                }
            }
        }
        toolCalls = snapshot.toolCalls
        let utf8 = snapshot.answer.utf8
        if utf8.count > answerBytes {
            let delta = String(decoding: utf8.dropFirst(answerBytes), as: UTF8.self)
            events.append(("message.delta", ["text": .string(delta)]))
            answerBytes = utf8.count
        }
        for error in snapshot.errors.dropFirst(errors) {
            events.append(("error", ["message": .string(error.message), "errorType": error.type.map(JSONValue.string) ?? .null,
                                     "kind": .string(RPCError.isContextOverflow(error.message) ? "context_overflow" : "server_error")]))
        }
        errors = snapshot.errors.count
        return events
    }

    private static func fields(_ call: ToolCallState, index: Int) -> [String: JSONValue] {
        var fields: [String: JSONValue] = ["index": .integer(index), "name": .string(call.name),
                                           "arguments": call.arguments ?? .null]
        switch call.status {
        case .running: break
        case .succeeded: fields["output"] = call.output.map(JSONValue.string) ?? .null
        case .failed(let reason): fields["reason"] = .string(reason)
        }
        return fields
    }
}
