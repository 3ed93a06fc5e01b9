import LMStudio
import Library

/// Everything known about one assistant reply while it streams and after it ends.
///
/// Text grows by appending to `reasoning` and `answer` (only a `chat.end` that contradicts the streamed
/// text replaces them, setting `isRewritten`); `items` is derived on demand, so a delta costs work
/// proportional to its own length.
public struct ReplyState: Sendable, Equatable {
    /// What the server is doing for this reply right now.
    public enum Stage: Sendable, Equatable {
        case waiting
        /// `instanceId` names the instance being loaded just in time, when the server said.
        case loadingModel(instanceId: String?, progress: Double)
        case processingPrompt(progress: Double)
        case reasoning
        /// The model is writing a tool call's arguments (after the undocumented `tool_call.name`).
        case preparingToolCall(name: String)
        case toolCall(name: String)
        case answering
        case ended
    }

    /// One part of the reply, in the order the server produced it.
    public enum Item: Sendable, Equatable {
        case reasoning(String)
        case message(String)
        case toolCall(ToolCallState)
    }

    /// Where one item starts: a UTF-8 offset into `reasoning` or `answer`, or an index into `toolCalls`.
    enum Part: Sendable, Equatable {
        case reasoning(start: Int)
        case message(start: Int)
        case toolCall(index: Int)
    }

    /// The separator between two message parts (or two reasoning parts) in the joined text: the library's, which
    /// reads the saved parts back apart.
    static let partSeparator = Message.partSeparator

    public var stage: Stage = .waiting
    /// All reasoning text, in full.
    public internal(set) var reasoning = ""
    /// All answer text, message parts joined by blank lines.
    public internal(set) var answer = ""
    /// Characters (grapheme clusters) in `reasoning`, counted as it grows.
    public internal(set) var reasoningCharacterCount = 0
    /// The tool calls, in order.
    public internal(set) var toolCalls: [ToolCallState] = []
    var parts: [Part] = []
    public var stats: ChatStats?
    public var responseId: String?
    public var modelInstanceId: String?
    /// The instance being loaded just in time for this reply, if any.
    public var loadingModelInstanceId: String?
    public var modelLoadSeconds: Double?
    /// `error` events, in order.
    public var errors: [APIErrorPayload] = []
    /// Why the server ended the reply with an error, as it is saved and every face shows it (the first `error`
    /// event's); nil when it sent none. Such a reply is saved as an error whatever else ended it.
    public var serverError: String? { errors.first.map(LMStudioError.describe(streamError:)) }
    /// True only once `chat.end` arrived: the one proof that the reply is whole.
    public var isComplete = false
    /// True when `chat.end`'s output differed from what streamed and replaced it: a text it rewrote or shortened, or
    /// tool calls it dropped or changed (the library keeps the streamed version as an alternative).
    public internal(set) var isRewritten = false
    /// How many events of the reply could not be read (their content is lost).
    public internal(set) var unreadableEventCount = 0
    /// Why the first unreadable event could not be read.
    public internal(set) var firstUnreadableEvent: String?
    /// When the first reasoning began, by the engine's clock (a `DisplayClock` instant).
    public internal(set) var reasoningStartedAt: Duration?
    /// When the last reasoning span closed (its `reasoning.end`, the next part, or the end of the reply).
    public internal(set) var reasoningEndedAt: Duration?

    /// Creates an empty reply.
    public init() {}

    /// How long the model reasoned, from the first reasoning to the end of the last; nil before it stopped.
    public var reasoningSeconds: Double? {
        guard let start = reasoningStartedAt, let end = reasoningEndedAt else { return nil }
        let elapsed = end - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// The reply's parts in server order, sliced from the joined texts.
    public var items: [Item] {
        var result: [Item] = []
        for (position, part) in parts.enumerated() {
            switch part {
            case .toolCall(let index):
                result.append(.toolCall(toolCalls[index]))
            case .reasoning(let start):
                let end = parts[(position + 1)...].lazy.compactMap { if case .reasoning(let s) = $0 { s } else { nil } }
                    .first
                result.append(.reasoning(Self.slice(reasoning, from: start, toNextPartAt: end)))
            case .message(let start):
                let end = parts[(position + 1)...].lazy.compactMap { if case .message(let s) = $0 { s } else { nil } }
                    .first
                result.append(.message(Self.slice(answer, from: start, toNextPartAt: end)))
            }
        }
        return result
    }

    private static func slice(_ text: String, from start: Int, toNextPartAt next: Int?) -> String {
        let utf8 = text.utf8
        let end = next.map { $0 - partSeparator.utf8.count } ?? utf8.count
        guard start <= end else { return "" }
        return String(
            decoding: utf8[utf8.index(utf8.startIndex, offsetBy: start)..<utf8.index(utf8.startIndex, offsetBy: end)],
            as: UTF8.self)
    }
}

/// One tool call of a reply, kept with the conversation whether or not its integration is still configured.
public struct ToolCallState: Sendable, Equatable {
    /// Where a tool call stands.
    public enum Status: Sendable, Equatable {
        case running
        case succeeded
        case failed(reason: String)
    }

    public var name: String
    public var arguments: JSONValue?
    public var output: String?
    public var provider: ProviderInfo?
    public var status: Status

    /// Creates a tool call record.
    public init(
        name: String, arguments: JSONValue? = nil, output: String? = nil, provider: ProviderInfo? = nil,
        status: Status = .running
    ) {
        self.name = name
        self.arguments = arguments
        self.output = output
        self.provider = provider
        self.status = status
    }
}
