import LMStudio

/// What a face of llmster (REPL, one-shot command, editor) shows of a reply at one moment.
///
/// Carries the reasoning preview rather than all reasoning: the accumulator keeps the full text.
public struct DisplaySnapshot: Sendable, Equatable {
    /// Why a snapshot was published.
    public enum Ending: Sendable, Equatable {
        /// A routine update while the reply streams.
        case streaming
        /// `chat.end` arrived.
        case completed
        /// The stream ended without `chat.end` (network, server, timeout).
        case interrupted(String)
        /// The user or a signal cancelled the reply.
        case cancelled
    }

    /// Counts snapshots of one reply from 0; a consumer can tell how many it skipped.
    public var sequence: Int
    public var ending: Ending
    public var stage: ReplyState.Stage
    /// The whole answer so far.
    public var answer: String
    /// The last `DisplayCoalescer.reasoningPreviewLength` characters of the reasoning.
    public var reasoningPreview: String
    public var reasoningCharacterCount: Int
    public var toolCalls: [ToolCallState]
    public var errors: [APIErrorPayload]
    public var stats: ChatStats?
    public var modelInstanceId: String?
    public var loadingModelInstanceId: String?
    public var isComplete: Bool

    /// Whether this is the reply's last snapshot.
    public var isFinal: Bool { ending != .streaming }
}
