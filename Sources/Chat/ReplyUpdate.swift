import LMStudio
import Library

/// One change to a streaming reply, as the engine publishes it to every face (REPL, `ask`, `rpc`, `voice`).
///
/// Appended texts are exact: the `answerAppended` texts of a reply, with any `answerReplaced` restarting
/// the sum, add up to its saved answer (likewise for reasoning). Coalescing merges adjacent appends and
/// stage changes; it never drops text.
public enum ReplyUpdate: Sendable, Equatable {
    /// What the server is doing now (latest wins when merged).
    case stageChanged(ReplyState.Stage)
    /// Reasoning text to append.
    case reasoningAppended(String)
    /// A reasoning span closed; `seconds` runs from the reply's first reasoning to now, by the engine's clock.
    case reasoningEnded(seconds: Double)
    /// Answer text to append.
    case answerAppended(String)
    /// A tool call was created or changed; `index` counts the reply's calls from 0.
    case toolCallChanged(index: Int, ToolCallState)
    /// `chat.end` rewrote the streamed answer: this is the whole final answer.
    case answerReplaced(String)
    /// `chat.end` rewrote the streamed reasoning: this is the whole final reasoning.
    case reasoningReplaced(String)
    /// The server reported an `error` event.
    case error(APIErrorPayload)
    /// The reply ended; always the last update.
    case ended(ReplyEnd)
}

/// How a reply's stream stopped.
public enum ReplyEnding: Sendable, Equatable {
    /// `chat.end` arrived.
    case completed
    /// The stream ended without `chat.end` (network, server, timeout).
    case interrupted(String)
    /// The user or a signal cancelled the reply.
    case cancelled
}

/// What an `error` event of a reply reports, in the words every face uses for it (rpc's `errorKind`).
public enum ReplyErrorKind: String, Sendable, Equatable {
    /// The conversation no longer fits the model's context.
    case contextOverflow = "context_overflow"
    /// Any other failure the server reported.
    case serverError = "server_error"

    /// Classifies an error the server reported, in a response body or a stream event: the one rule for context overflow.
    ///
    /// The code `context_length_exceeded` (LM Studio's, and the simulator's) decides; a server that words the
    /// failure without that code is read by its message ("context" with "overflow", "exceed", "too long" or "length").
    public init(_ error: APIErrorPayload) {
        if error.code == "context_length_exceeded" {
            self = .contextOverflow
            return
        }
        let lower = error.message.lowercased()
        let overflow =
            lower.contains("context")
            && (lower.contains("overflow") || lower.contains("exceed")
                || lower.contains("too long") || lower.contains("length"))
        self = overflow ? .contextOverflow : .serverError
    }
}

/// The end of a reply: how it stopped, the status it is saved with, and its final state.
public struct ReplyEnd: Sendable, Equatable {
    public var ending: ReplyEnding
    public var status: MessageStatus
    /// Why the reply is not complete, when it is not.
    public var errorMessage: String?
    /// Everything about the reply, stats and errors included.
    public var state: ReplyState

    /// Creates an end record.
    public init(ending: ReplyEnding, status: MessageStatus, errorMessage: String?, state: ReplyState) {
        self.ending = ending
        self.status = status
        self.errorMessage = errorMessage
        self.state = state
    }

    /// The kind of the reply's first `error` event, if the server sent one.
    public var errorKind: ReplyErrorKind? { state.errors.first.map { ReplyErrorKind($0) } }
}
