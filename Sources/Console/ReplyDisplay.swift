import Chat
import Foundation
import LMStudio
import SystemSupport
import TerminalMarkdown

/// Shows a streaming reply: rendered in the terminal's live area, or as plain appended text.
///
/// On a terminal the whole reply (stage line, reasoning tail, tool calls, Markdown answer, stats line)
/// goes through one `LiveReplyView`, fed a `ReplySnapshot` this display keeps current from the reply's
/// updates. When standard output is not a terminal, the answer's appended text is written raw (control
/// characters neutralised) and, when standard error is a terminal, the stages, reasoning tail and stats
/// line are shown there. If the server's final answer differs from the streamed text, plain output gets
/// a notice on standard error and the final answer in full on a new line.
public actor ReplyDisplay {
    /// Reasoning kept for the live tail beyond `ReplyPresenter.reasoningWindow` before it is trimmed.
    private static let reasoningSlack = 64 * 1024

    private let answerView: (any ReplyView)?
    private let statusView: LiveReplyView<FileDescriptorSink>?
    private let plainOutput: StandardStream?
    private let modelName: String
    /// Whether stages and the reasoning tail are shown (standard error is a terminal).
    private let showsStatus: Bool
    /// Rendered Markdown goes to a standard output that is not a terminal: it gets the answer only.
    private let answerOnly: Bool
    private var reply = ReplySnapshot()
    private var toolCalls: [ToolCallState] = []
    /// For each tool call, the answer's UTF-8 length when it started.
    private var toolCallAnswerOffsets: [Int] = []
    private var answerStarted = false
    private var plainEndsLine = true
    /// UTF-8 length of the answer prefix the live view has drawn.
    private var drawnAnswerBytes = 0
    /// How the reply ended, once it has.
    private var ending: ReplyEnding?
    /// The most new answer text one terminal update renders, so a reply arriving faster than the
    /// terminal draws it never makes one update (or Ctrl-C) wait seconds; later updates catch up.
    static let renderStepBytes = 64 << 10
    private let started = ContinuousClock.now

    /// Creates a display: `rendered` decides whether standard output gets the live view.
    init(rendered: Bool, statusOnStandardError: Bool, capabilities: TerminalCapabilities,
         errorCapabilities: TerminalCapabilities, mode: MarkdownMode, reasoningLines: Int, modelName: String) {
        self.modelName = modelName
        self.showsStatus = statusOnStandardError
        reply.stage = .waiting
        answerOnly = rendered && !capabilities.isTTY
        if rendered {
            // Line mode (Emacs comint, TERM=dumb): `LineModeReplyView`, appended lines only.
            answerView = replyView(sink: FileDescriptorSink(fd: 1), capabilities: capabilities, mode: mode, reasoningLines: reasoningLines)
            // `--markdown always` into a pipe: the rendered answer alone on standard output, the rest on standard error.
            statusView = answerOnly && statusOnStandardError
                ? LiveReplyView(sink: FileDescriptorSink(fd: 2), capabilities: errorCapabilities, mode: .never, reasoningLines: reasoningLines)
                : nil
            plainOutput = nil
        } else {
            answerView = nil
            plainOutput = .output
            statusView = statusOnStandardError
                ? LiveReplyView(sink: FileDescriptorSink(fd: 2), capabilities: errorCapabilities, mode: .never, reasoningLines: reasoningLines)
                : nil
        }
    }

    /// The display for a command-line reply, chosen from the terminals and `--markdown`.
    public static func forCommandLine(context: CommandContext, modelName: String = "") -> ReplyDisplay {
        let output = context.terminal(fd: 1)
        let errors = context.terminal(fd: 2)
        let mode = MarkdownMode(rawValue: context.markdownMode) ?? .auto
        let rendered = output.isTTY && mode != .never || mode == .always
        // Line mode: stages and reasoning go with the answer, as lines (standard error is the same front end).
        let showsStatus = errors.allowsCursorMovement || output.isLineMode && errors.isLineMode
        return ReplyDisplay(rendered: rendered, statusOnStandardError: showsStatus, capabilities: output,
                            errorCapabilities: errors, mode: mode, reasoningLines: context.configuration.reasoningTailLines,
                            modelName: modelName)
    }

    /// Shows one update of the reply; in a cancelled task (a reply the user cancelled), text still arriving is
    /// taken in but not drawn or written, and only the end is shown.
    public func show(_ update: ReplyUpdate) {
        let cancelled = Task.isCancelled
        var replaced: String?
        switch update {
        case .stageChanged(let stage):
            reply.stage = switch stage {
            case .loadingModel(let instance, let progress): .loadingModel(instance ?? modelName, progress: progress)
            case .processingPrompt(let progress): .processingPrompt(progress: progress)
            case .waiting where !answerStarted: .waiting
            default: nil
            }
        case .reasoningAppended(let text):
            appendReasoning(text)
        case .reasoningReplaced(let text):
            reply.reasoning = String(text.suffix(ReplyPresenter.reasoningWindow))
            reply.reasoningCharacterCount = text.count
        case .reasoningEnded(let seconds):
            reply.reasoningSeconds = seconds
        case .answerAppended(let text):
            answerStarted = true
            reply.stage = nil
            if answerView != nil { reply.answer += text } else if !cancelled { appendPlain(text) }
        case .answerReplaced(let text):
            answerStarted = true
            if answerView != nil {
                replaced = String(decoding: reply.answer.utf8.prefix(drawnAnswerBytes), as: UTF8.self)
                reply.answer = text
            } else {
                replacePlain(with: text)
            }
        case .toolCallChanged(let index, let call):
            if index < toolCalls.count {
                toolCalls[index] = call
            } else {
                toolCalls.append(call)
                toolCallAnswerOffsets.append(reply.answer.utf8.count)
            }
            reply.finishedToolCalls = zip(toolCalls, toolCallAnswerOffsets).prefix { $0.0.status != .running }
                .compactMap { Self.summary($0, answerOffset: $1) }
        case .error:
            break
        case .ended(let end):
            finish(end)
        }
        if cancelled, !reply.isFinished { return }
        render(replacing: replaced)
    }

    /// Applies a new terminal size to what is drawn from now on (after SIGWINCH).
    public func resize(width: Int, height: Int) {
        answerView?.width = width
        answerView?.height = height
    }

    private func appendReasoning(_ text: String) {
        reply.reasoning += text
        reply.reasoningCharacterCount += text.count
        if reply.reasoning.utf8.count > Self.reasoningSlack {
            reply.reasoning = String(reply.reasoning.suffix(ReplyPresenter.reasoningWindow))
        }
    }

    /// The part of `answer` to draw now: while streaming (`ending` nil) up to ``renderStepBytes`` more than was
    /// drawn (cut after a line end or at a character boundary), all of it once complete or failed, and nothing
    /// new once cancelled (the text is saved).
    static func drawablePrefix(of answer: String, drawn: Int, ending: ReplyEnding?) -> String {
        let utf8 = answer.utf8
        let limit: Int
        switch ending {
        case .cancelled: limit = drawn
        case nil: limit = drawn + renderStepBytes
        case .completed, .interrupted: return answer
        }
        guard utf8.count > limit else { return answer }
        let windowStart: String.Index = utf8.index(utf8.startIndex, offsetBy: min(drawn, limit))
        var cut: String.Index = utf8.index(utf8.startIndex, offsetBy: limit)
        if let lineEnd: String.Index = utf8[windowStart..<cut].lastIndex(of: UInt8(ascii: "\n")) {
            cut = utf8.index(after: lineEnd)
        }
        cut = utf8.characterBoundary(atOrBefore: cut, notBefore: utf8.startIndex)
        return String(answer[..<cut])
    }

    private func finish(_ end: ReplyEnd) {
        ending = end.ending
        let state = end.state
        reply.isFinished = true
        reply.reasoningCharacterCount = state.reasoningCharacterCount
        reply.reasoningSeconds = state.reasoningSeconds ?? reply.reasoningSeconds
        reply.stats = state.stats.map {
            ReplyStats(tokens: $0.totalOutputTokens ?? 0, tokensPerSecond: $0.tokensPerSecond ?? 0,
                       timeToFirstToken: $0.timeToFirstTokenSeconds, modelLoadTime: $0.modelLoadTimeSeconds)
        }
        reply.outcome = switch end.ending {
        case .cancelled: .cancelled
        case .interrupted(let reason): .failed(reason)
        case .completed: state.errors.first.map { .failed(LMStudioError.describe(streamError: $0)) } ?? .complete
        }
        if let plainOutput, !plainEndsLine {
            plainOutput.send("\n")
            plainEndsLine = true
        }
    }

    private func render(replacing previous: String?) {
        reply.elapsedSeconds = (ContinuousClock.now - started).seconds
        if let answerView {
            var shown = reply
            // Stages and reasoning belong to standard error: shown only when it is a terminal too.
            if !showsStatus || answerOnly {
                shown.stage = nil
                shown.reasoning = ""
                shown.reasoningCharacterCount = 0
            }
            if answerOnly {
                shown.stats = nil
                shown.outcome = .complete
            }
            if let previous {
                answerView.update(shown, replacingAnswer: previous)
            } else {
                shown.answer = Self.drawablePrefix(of: reply.answer, drawn: drawnAnswerBytes, ending: ending)
                answerView.update(shown)
            }
            drawnAnswerBytes = shown.answer.utf8.count
        }
        if let statusView {
            var status = reply
            status.answer = ""
            for index in status.finishedToolCalls.indices { status.finishedToolCalls[index].answerOffset = 0 }
            if answerStarted {
                status.stage = nil
                status.reasoning = ""
            }
            statusView.update(status)
        }
    }

    /// Writes appended answer text to standard output.
    private func appendPlain(_ text: String) {
        guard let plainOutput, !text.isEmpty else { return }
        plainOutput.send(UntrustedText.sanitize(text))
        plainEndsLine = text.hasSuffix("\n")
    }

    /// Says on standard error that the answer was rewritten and writes the final answer in full on a new line.
    private func replacePlain(with text: String) {
        guard let plainOutput else { return }
        if !plainEndsLine { plainOutput.send("\n") }
        plainEndsLine = true
        StandardStream.error.send("llmster: the server's final answer differs from the streamed text; the final answer follows in full.\n")
        appendPlain(text)
    }

    private static func summary(_ call: ToolCallState, answerOffset: Int) -> ToolCallSummary? {
        switch call.status {
        case .running: nil
        case .succeeded: ToolCallSummary(name: call.name, arguments: call.arguments?.compactDescription ?? "",
                                         result: .succeeded(bytes: call.output?.utf8.count ?? 0), answerOffset: answerOffset)
        case .failed(let reason): ToolCallSummary(name: call.name, arguments: call.arguments?.compactDescription ?? "",
                                                  result: .failed(reason), answerOffset: answerOffset)
        }
    }

    /// Prints a whole Markdown document: rendered on a terminal, raw (sanitised) otherwise.
    public static func printDocument(_ markdown: String, context: CommandContext) {
        let capabilities = context.terminal(fd: 1)
        let mode = MarkdownMode(rawValue: context.markdownMode) ?? .auto
        if mode.rendersMarkdown(on: capabilities) {
            context.output.send(MarkdownRenderer(capabilities: capabilities, mode: mode).render(markdown))
        } else {
            context.output.send(UntrustedText.sanitize(markdown))
        }
    }
}

extension JSONValue {
    /// Arguments as a tool call line shows them: `{query: "sse", limit: 5}`.
    var compactDescription: String {
        switch self {
        case .object(let members):
            "{" + members.keys.sorted().map { "\($0): \(members[$0]!.compactDescription)" }.joined(separator: ", ") + "}"
        case .array(let items): "[" + items.map(\.compactDescription).joined(separator: ", ") + "]"
        case .string(let text): "\"\(text)\""
        default: jsonString
        }
    }
}
