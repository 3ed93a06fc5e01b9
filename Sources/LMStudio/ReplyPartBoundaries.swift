/// Where a chat stream's events start the parts of a reply: the one rule by which the reply's accumulator (in
/// `Chat`) builds its parts and ``StreamedTextDigests`` cuts the streamed texts into segments, so a text confirmed
/// against a segment starts where a part of the streamed reply does.
///
/// A part of answer text or reasoning starts at its `start` event, and at a delta (even an empty one) when the last
/// part is of another kind. A tool call's part starts at `tool_call.start`, and at another tool-call event that
/// names no running call: calls carry no id, so an event goes to the first running call of its name (a failure that
/// names no tool, to the first running call). Nothing after `chat.end` starts or changes a part.
public struct ReplyPartBoundaries: Sendable {
    /// What a part holds.
    public enum Kind: Sendable, Equatable {
        case message, reasoning, toolCall
    }

    /// What one event does to the reply's parts.
    public enum Placement: Sendable, Equatable {
        /// It starts a part of this kind; a tool call's is the next call, numbered from 0 in the order they started.
        case starts(Kind)
        /// It goes on in the last part: a delta of that part's kind.
        case continues
        /// It changes the running tool call numbered `index`.
        case updatesCall(index: Int)
        /// It starts and changes no part.
        case outside
    }

    /// The kind of the last part started; nil before the first.
    public private(set) var last: Kind?
    /// The calls still running, by name and number, in the order they started.
    private var running: [(name: String, index: Int)] = []
    private var calls = 0
    private var ended = false

    /// Boundaries for a new reply.
    public init() {}

    /// What `event`, the next of the stream, does to the reply's parts.
    public mutating func place(_ event: ChatEvent) -> Placement {
        guard !ended else { return .outside }
        switch event {
        case .messageStart:
            return start(.message)
        case .reasoningStart:
            return start(.reasoning)
        case .messageDelta:
            return last == .message ? .continues : start(.message)
        case .reasoningDelta:
            return last == .reasoning ? .continues : start(.reasoning)
        case .toolCallStart(let tool, _):
            return startCall(running: tool)
        case .toolCallArguments(let tool, _, _):
            guard let found = running.first(where: { $0.name == tool }) else { return startCall(running: tool) }
            return .updatesCall(index: found.index)
        case .toolCallSuccess(let tool, _, _, _):
            return finishCall(named: tool)
        case .toolCallFailure(_, let metadata):
            return finishCall(named: metadata?.toolName)
        case .chatEnd:
            ended = true
            return .outside
        case .chatStart, .toolCallName, .modelLoadStart, .modelLoadProgress, .modelLoadEnd, .promptProcessingStart,
            .promptProcessingProgress, .promptProcessingEnd, .reasoningEnd, .messageEnd, .error, .unreadable:
            return .outside
        }
    }

    private mutating func start(_ kind: Kind) -> Placement {
        last = kind
        return .starts(kind)
    }

    /// Starts a call's part; `name` is the call's while it runs, nil for one that ended as it started.
    private mutating func startCall(running name: String?) -> Placement {
        if let name { running.append((name, calls)) }
        calls += 1
        return start(.toolCall)
    }

    /// A success or failure: it ends the first running call of that name (of any name when nil), or is a call of
    /// its own that ended as it started.
    private mutating func finishCall(named name: String?) -> Placement {
        guard let position = running.firstIndex(where: { name == nil || $0.name == name }) else {
            return startCall(running: nil)
        }
        return .updatesCall(index: running.remove(at: position).index)
    }
}
