import Chat
import LMStudio
import SystemSupport

/// Turns a reply's updates into `chat/event` payloads: stage progress, exact text deltas and replacements, the
/// engine's reasoning time, tool calls, errors.
///
/// Pure and incremental; it remembers only which tool calls the client has seen, so a call whose start and
/// end were merged into one update still reaches the client as `tool_call.start` then its outcome.
public struct ChatEventTracker: Sendable {
    /// Every `type` a `chat/event` can carry.
    public static let eventTypes = [
        "model_load.progress", "prompt_processing.progress", "reasoning.delta", "reasoning.replace", "reasoning.end",
        "tool_call.name", "tool_call.start", "tool_call.arguments", "tool_call.success", "tool_call.failure",
        "message.delta", "message.replace", "error"
    ]

    private var toolCalls: [ToolCallState] = []

    /// A tracker for a new reply.
    public init() {}

    /// The events (type and fields) that `update` makes; empty for updates an editor does not hear about.
    public mutating func events(for update: ReplyUpdate) -> [(type: String, fields: [String: JSONValue])] {
        switch update {
        case .stageChanged(.loadingModel(let instance, let progress)):
            return [
                (
                    "model_load.progress",
                    ["progress": .number(progress), "modelInstanceId": instance.map(JSONValue.string) ?? .null]
                )
            ]
        case .stageChanged(.processingPrompt(let progress)):
            return [("prompt_processing.progress", ["progress": .number(progress)])]
        case .stageChanged(.preparingToolCall(let name)):
            return [("tool_call.name", ["name": .string(name)])]
        case .stageChanged, .ended:
            return []
        case .reasoningEnded(let seconds):
            return [
                (
                    "reasoning.end",
                    ["seconds": .number(seconds), "reasoningLabel": .string(Figures.reasoningLabel(seconds: seconds))]
                )
            ]
        case .reasoningAppended(let text):
            return [("reasoning.delta", ["text": .string(text)])]
        case .answerAppended(let text):
            return [("message.delta", ["text": .string(text)])]
        case .reasoningReplaced(let text):
            return [("reasoning.replace", ["text": .string(text)])]
        case .answerReplaced(let text):
            return [("message.replace", ["text": .string(text)])]
        case .toolCallChanged(let index, let call):
            return toolCallEvents(index: index, call)
        case .error(let error):
            return [
                (
                    "error",
                    [
                        "message": .string(error.message), "errorType": error.type.map(JSONValue.string) ?? .null,
                        "kind": .string(ReplyErrorKind(error).rawValue)
                    ]
                )
            ]
        }
    }

    private mutating func toolCallEvents(index: Int, _ call: ToolCallState) -> [(
        type: String, fields: [String: JSONValue]
    )] {
        var events: [(type: String, fields: [String: JSONValue])] = []
        let previous = index < toolCalls.count ? toolCalls[index] : nil
        if previous == nil {
            // Calls arrive in index order; the padding only keeps a gap from trapping.
            while toolCalls.count <= index { toolCalls.append(call) }
            events.append(("tool_call.start", Self.fields(call, index: index)))
        } else if call.status == .running, previous?.arguments != call.arguments {
            events.append(("tool_call.arguments", Self.fields(call, index: index)))
        }
        if previous?.status != call.status {
            switch call.status {
            case .running: break
            case .succeeded: events.append(("tool_call.success", Self.fields(call, index: index)))
            case .failed: events.append(("tool_call.failure", Self.fields(call, index: index)))
            }
        }
        toolCalls[index] = call
        return events
    }

    private static func fields(_ call: ToolCallState, index: Int) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [
            "index": .integer(index), "name": .string(call.name),
            "arguments": call.arguments ?? .null, "status": .string(call.status.name)
        ]
        switch call.status {
        case .running: break
        case .succeeded: fields["output"] = call.output.map(JSONValue.string) ?? .null
        case .failed(let reason): fields["reason"] = .string(reason)
        }
        return fields
    }
}

extension ToolCallState.Status {
    /// `running`, `succeeded` or `failed`, as events and saved messages spell it.
    var name: String {
        switch self {
        case .running: "running"
        case .succeeded: "succeeded"
        case .failed: "failed"
        }
    }
}
