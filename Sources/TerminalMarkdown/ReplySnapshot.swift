/// Everything `LiveReplyView` shows about a reply at one moment; the caller keeps one current from the reply's updates.
public struct ReplySnapshot: Sendable, Equatable {
    /// What the reply is waiting for before text arrives; nil once there is nothing to wait for.
    public var stage: ReplyStage?
    /// Seconds since the request was sent, shown on the stage line.
    public var elapsedSeconds: Double
    /// The reasoning so far (its latest part is enough: only the last 4,096 characters are looked at).
    public var reasoning: String
    /// Characters of reasoning in total, for the collapsed summary.
    public var reasoningCharacterCount: Int
    /// How long the model reasoned, for the collapsed summary.
    public var reasoningSeconds: Double
    /// The whole answer text so far.
    public var answer: String
    /// Tool calls that have finished, in order (up to the first still running); each is printed once, after the
    /// reasoning and answer text that came before it.
    public var finishedToolCalls: [ToolCallSummary]
    /// Whether the reply has ended (completed, cancelled or failed).
    public var isFinished: Bool
    /// Figures for the stats line printed after the reply.
    public var stats: ReplyStats?
    /// How the reply ended; only read when `isFinished`.
    public var outcome: ReplyOutcome

    /// Creates a snapshot; everything but the answer defaults to "nothing yet".
    public init(
        stage: ReplyStage? = nil, elapsedSeconds: Double = 0, reasoning: String = "",
        reasoningCharacterCount: Int? = nil, reasoningSeconds: Double = 0, answer: String = "",
        finishedToolCalls: [ToolCallSummary] = [], isFinished: Bool = false, stats: ReplyStats? = nil,
        outcome: ReplyOutcome = .complete
    ) {
        self.stage = stage
        self.elapsedSeconds = elapsedSeconds
        self.reasoning = reasoning
        self.reasoningCharacterCount = reasoningCharacterCount ?? reasoning.count
        self.reasoningSeconds = reasoningSeconds
        self.answer = answer
        self.finishedToolCalls = finishedToolCalls
        self.isFinished = isFinished
        self.stats = stats
        self.outcome = outcome
    }
}

/// What a reply waits for before its first token.
public enum ReplyStage: Sendable, Equatable {
    /// The request is out, nothing has come back yet.
    case waiting
    /// The server is loading `model`; `progress` is 0…1 when known.
    case loadingModel(String, progress: Double?)
    /// The server is reading the prompt; `progress` is 0…1 when known.
    case processingPrompt(progress: Double?)
    /// A tool call (named `tool`) is running, since `since` seconds into the reply; shown below the text so far.
    case runningTool(String, since: Double)
    /// The model is writing the arguments of a call to `tool`, since `since` seconds into the reply.
    case preparingTool(String, since: Double)

    /// Whether it is a tool call's stage (shown below the text so far).
    public var isToolCall: Bool {
        switch self {
        case .runningTool, .preparingTool: true
        case .waiting, .loadingModel, .processingPrompt: false
        }
    }
}

/// A finished tool call as one committed line shows it.
public struct ToolCallSummary: Sendable, Equatable {
    /// How a tool call ended.
    public enum Result: Sendable, Equatable {
        /// The tool returned `bytes` bytes of output.
        case succeeded(bytes: Int)
        /// The call failed with a message (from the server or the tool).
        case failed(String)
        /// The reply ended while the call was still running.
        case unfinished
    }

    /// The tool's name.
    public var name: String
    /// The arguments, compact (e.g. `{query: "sse"}`); shortened to fit the line.
    public var arguments: String
    public var result: Result
    /// UTF-8 bytes of the answer that came before the call: its line follows that text, never precedes it.
    public var answerOffset: Int

    /// Creates a summary.
    public init(name: String, arguments: String, result: Result, answerOffset: Int = 0) {
        self.name = name
        self.arguments = arguments
        self.result = result
        self.answerOffset = answerOffset
    }
}

/// Figures shown on the dim line after a reply.
public struct ReplyStats: Sendable, Equatable {
    /// Tokens generated.
    public var tokens: Int
    /// Generation speed; nil when the server did not report it (the figure is left out, never shown as 0).
    public var tokensPerSecond: Double?
    /// Seconds from sending to the first token, when known.
    public var timeToFirstToken: Double?
    /// Seconds the server spent loading the model for this reply; nil when it was loaded already.
    public var modelLoadTime: Double?

    /// Creates stats.
    public init(tokens: Int, tokensPerSecond: Double?, timeToFirstToken: Double? = nil, modelLoadTime: Double? = nil) {
        self.tokens = tokens
        self.tokensPerSecond = tokensPerSecond
        self.timeToFirstToken = timeToFirstToken
        self.modelLoadTime = modelLoadTime
    }
}

/// How a reply ended.
public enum ReplyOutcome: Sendable, Equatable {
    case complete
    /// Stopped by the user.
    case cancelled
    /// Complete and saved, but its drawing was stopped by the user before all of it was shown.
    case shownInPart
    /// Ended early (the stream dropped, an unreadable event), with its message (untrusted, sanitised when shown):
    /// saved as incomplete.
    case failed(String)
    /// Ended by the server's `error` event, with its message (untrusted, sanitised when shown): saved as an error,
    /// as `show` then marks it.
    case error(String)
}
