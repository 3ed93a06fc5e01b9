import Chat
import Foundation
import LMStudio
import Markdown
import SystemSupport
import TerminalMarkdown

/// Shows a streaming reply: rendered in the terminal's live area, or as plain appended text.
///
/// On a terminal the whole reply (stage line, reasoning tail, tool calls, Markdown answer, stats line)
/// goes through one `LiveReplyView`, fed a `ReplySnapshot` this display keeps current from the reply's
/// updates and the answer's appended text, which it draws at once (in steps of at most ``renderStepBytes``)
/// and does not keep: the engine holds the reply, the view only its uncommitted tail. In a cancelled task it
/// stops drawing between two steps (the view does not draw a step it rendered while the task was cancelled), and
/// the end leaves what is on the screen as it is and adds the end line. In line mode (Emacs's shell) everything that
/// arrived is still printed, then the end line.
/// When standard output is not a terminal, the answer's appended text is written raw (control
/// characters neutralised) and, when standard error is a terminal, the stages, reasoning tail and stats
/// line are shown there. When the server's final answer replaces the streamed text, a terminal shows the final
/// answer; standard output that is not a terminal keeps what streamed once any of it was written, so the answer
/// never goes there twice (`ask` says on standard error that the final reply replaced it, kept in the library).
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
    /// What the views show; its `answer` stays empty (the answer goes to the view as it arrives).
    private(set) var reply = ReplySnapshot()
    /// Each tool call's summary once it has finished (nil while it runs), made when that call changes.
    private var toolSummaries: [ToolCallSummary?] = []
    /// For each tool call, the answer's UTF-8 length when it started.
    private var toolCallAnswerOffsets: [Int] = []
    /// The finished tool calls as the status view shows them: no answer goes before them there.
    private var statusToolCalls: [ToolCallSummary] = []
    /// Tool call summaries made so far: one per change of a finished call.
    private(set) var summaryCount = 0
    /// UTF-8 length of the answer so far.
    private var answerBytes = 0
    private var answerStarted = false
    private var plainEndsLine = true
    /// Drawing stopped in a cancelled task: the rest of the answer is not drawn, the end only adds its line.
    private var stopped = false
    /// The reply's stream began: an update arrived.
    private var streaming = false
    /// Answer text arrived that drawing stopped before.
    private var skipped = false
    /// The most answer text one terminal update renders: a long piece is drawn in steps, with a check for
    /// cancellation between them, so Ctrl-C stops the drawing of a backlog at once.
    static let renderStepBytes = 64 << 10
    private let started = ContinuousClock.now

    /// Creates a display: `rendered` decides whether standard output gets the live view.
    init(
        rendered: Bool, statusOnStandardError: Bool, capabilities: TerminalCapabilities,
        errorCapabilities: TerminalCapabilities, mode: MarkdownMode, reasoningLines: Int, modelName: String
    ) {
        self.modelName = modelName
        self.showsStatus = statusOnStandardError
        reply.stage = .waiting
        answerOnly = rendered && !capabilities.isTTY
        if rendered {
            // Line mode (Emacs comint, TERM=dumb): `LineModeReplyView`, appended lines only.
            answerView = replyView(
                sink: FileDescriptorSink(fd: 1), capabilities: capabilities, mode: mode, reasoningLines: reasoningLines)
            // `--markdown always` into a pipe: the rendered answer alone on standard output, the rest on standard error.
            statusView =
                answerOnly && statusOnStandardError
                ? LiveReplyView(
                    sink: FileDescriptorSink(fd: 2), capabilities: errorCapabilities, mode: .never,
                    reasoningLines: reasoningLines)
                : nil
            plainOutput = nil
        } else {
            answerView = nil
            plainOutput = .output
            statusView =
                statusOnStandardError
                ? LiveReplyView(
                    sink: FileDescriptorSink(fd: 2), capabilities: errorCapabilities, mode: .never,
                    reasoningLines: reasoningLines)
                : nil
        }
        // Once a second the live area is drawn again while it waits on the server, so its time moves on in a silence.
        Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                guard let self, await self.tick() else { return }
            }
        }
    }

    /// Draws the reply again with the time moved on when a stage or a running tool call is shown, once the reply's
    /// stream began (before it, the turn may still load a model, print its steps, or come back unsent with a
    /// question); false once the reply has finished, which ends the ticking.
    private func tick() -> Bool {
        guard !reply.isFinished else { return false }
        if !stopped, streaming, reply.stage != nil { render() }
        return true
    }

    /// The display for a command-line reply, chosen from the terminals and `--markdown`.
    public static func forCommandLine(context: CommandContext, modelName: String = "") -> ReplyDisplay {
        let output = context.terminal(fd: 1)
        let errors = context.terminal(fd: 2)
        let mode = MarkdownMode(rawValue: context.markdownMode) ?? .auto
        let rendered = output.isTTY && mode != .never || mode == .always
        // Line mode: stages and reasoning go with the answer, as lines (standard error is the same front end).
        let showsStatus = errors.allowsCursorMovement || output.isLineMode && errors.isLineMode
        return ReplyDisplay(
            rendered: rendered, statusOnStandardError: showsStatus, capabilities: output,
            errorCapabilities: errors, mode: mode, reasoningLines: context.configuration.reasoningTailLines,
            modelName: modelName)
    }

    /// Shows one update of the reply; in a cancelled task (a reply the user cancelled), text still arriving is
    /// neither drawn nor written, and only the end line is shown — except by a view that draws all that arrived
    /// (`ReplyView.drawsAllWhenCancelled`: line mode, whose reader keeps every line).
    public func show(_ update: ReplyUpdate) {
        streaming = true
        if Task.isCancelled, answerView?.drawsAllWhenCancelled != true { stopped = true }
        switch update {
        case .stageChanged(let stage):
            if case .toolCall = stage { elapse() }
            if case .preparingToolCall = stage { elapse() }
            reply.stage =
                switch stage {
                case .loadingModel(let instance, let progress): .loadingModel(instance ?? modelName, progress: progress)
                case .processingPrompt(let progress): .processingPrompt(progress: progress)
                case .toolCall(let name): .runningTool(name, since: reply.elapsedSeconds)
                case .preparingToolCall(let name): .preparingTool(name, since: reply.elapsedSeconds)
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
            answerBytes += text.utf8.count
            guard !stopped else {
                skipped = true
                return
            }
            if answerView != nil { return drawAnswer(text) }
            appendPlain(text)
        case .answerReplaced(let text):
            // Standard output is not a terminal: what streamed stays, the final answer goes only where nothing did.
            if answerStarted, plainOutput != nil || answerOnly { break }
            answerStarted = true
            answerBytes = text.utf8.count
            guard !stopped else {
                skipped = true
                return
            }
            if let answerView {
                drawAnswer(String(Substring(text.utf8.dropFirst(answerView.replaceAnswer(with: text)))))
                break
            }
            appendPlain(text)
        case .toolCallChanged(let index, let call):
            changeToolCall(index, call)
        case .error:
            break
        case .ended(let end):
            finish(end)
        }
        if stopped, !reply.isFinished { return }
        render()
    }

    /// Keeps the summary of tool call `index` current, and the finished calls (up to the first still running).
    private func changeToolCall(_ index: Int, _ call: ToolCallState) {
        if index >= toolSummaries.count {
            toolSummaries.append(nil)
            toolCallAnswerOffsets.append(answerBytes)
        }
        let summary = Self.summary(call, answerOffset: toolCallAnswerOffsets[index])
        if summary != nil { summaryCount += 1 }
        toolSummaries[index] = summary
        if index < reply.finishedToolCalls.count, let summary {
            reply.finishedToolCalls[index] = summary
            statusToolCalls[index] = summary
            statusToolCalls[index].answerOffset = 0
        }
        publishFinishedToolCalls()
    }

    /// Adds the calls that finished, in order up to the first still running, to what the views show.
    private func publishFinishedToolCalls() {
        while reply.finishedToolCalls.count < toolSummaries.count,
            let next = toolSummaries[reply.finishedToolCalls.count]
        {
            reply.finishedToolCalls.append(next)
            var status = next
            status.answerOffset = 0
            statusToolCalls.append(status)
        }
    }

    /// Draws appended answer text in steps of at most ``renderStepBytes`` (cut after a line end or at a character
    /// boundary), stopping when the task is cancelled.
    private func drawAnswer(_ text: String) {
        guard let answerView else { return }
        let utf8 = text.utf8
        var start = utf8.startIndex
        while start < utf8.endIndex {
            if Task.isCancelled, !answerView.drawsAllWhenCancelled {
                stopped = true
                skipped = true
                return
            }
            var cut = utf8.index(start, offsetBy: Self.renderStepBytes, limitedBy: utf8.endIndex) ?? utf8.endIndex
            if cut < utf8.endIndex {
                if let lineEnd = utf8[start..<cut].lastIndex(of: UInt8(ascii: "\n")) {
                    cut = utf8.index(after: lineEnd)
                }
                cut = utf8.characterBoundary(atOrBefore: cut, notBefore: start)
                if cut == start { cut = text.index(after: start) }
            }
            elapse()
            answerView.update(shownReply(), appendingAnswer: String(Substring(utf8[start..<cut])))
            start = cut
        }
        renderStatus()
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

    private func finish(_ end: ReplyEnd) {
        let state = end.state
        // A call still running when the reply ended is shown as one that did not finish, as `show` records it.
        for (index, summary) in toolSummaries.enumerated() where summary == nil {
            let call = index < state.toolCalls.count ? state.toolCalls[index] : ToolCallState(name: "")
            toolSummaries[index] = Self.summary(call, answerOffset: toolCallAnswerOffsets[index], unfinished: true)
        }
        publishFinishedToolCalls()
        reply.stage = nil
        reply.isFinished = true
        reply.reasoningCharacterCount = state.reasoningCharacterCount
        reply.reasoningSeconds = state.reasoningSeconds ?? reply.reasoningSeconds
        reply.stats = state.stats.map(ReplyStats.init)
        // Marked as the reply is saved: a server error first, whatever else ended the reply.
        reply.outcome =
            if let serverError = state.serverError {
                .error(serverError)
            } else {
                switch end.ending {
                case .cancelled: .cancelled
                case .interrupted(let reason): .failed(reason)
                case .completed: skipped ? .shownInPart : .complete
                }
            }
        if let plainOutput, !plainEndsLine {
            plainOutput.send("\n")
            plainEndsLine = true
        }
    }

    private func elapse() {
        reply.elapsedSeconds = (ContinuousClock.now - started).seconds
    }

    /// The snapshot the answer view shows (its answer is given piece by piece).
    private func shownReply() -> ReplySnapshot {
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
        return shown
    }

    private func render() {
        elapse()
        if let answerView {
            if stopped && reply.isFinished {
                answerView.stop(shownReply())
            } else {
                answerView.update(shownReply(), appendingAnswer: "")
            }
        }
        renderStatus()
    }

    private func renderStatus() {
        guard let statusView else { return }
        var status = reply
        status.finishedToolCalls = statusToolCalls
        if answerStarted {
            status.stage = nil
            status.reasoning = ""
        }
        if stopped && reply.isFinished { statusView.stop(status) } else { statusView.update(status) }
    }

    /// Writes appended answer text to standard output.
    private func appendPlain(_ text: String) {
        guard let plainOutput, !text.isEmpty else { return }
        plainOutput.send(SanitizedMessage(untrusted: text))
        plainEndsLine = text.hasSuffix("\n")
    }

    /// A finished call's summary; nil for one still running, unless `unfinished` (the reply ended while it ran).
    private static func summary(_ call: ToolCallState, answerOffset: Int, unfinished: Bool = false) -> ToolCallSummary?
    {
        switch call.status {
        case .running where unfinished:
            ToolCallSummary(
                name: call.name, arguments: call.arguments?.compactDescription ?? "",
                result: .unfinished, answerOffset: answerOffset)
        case .running: nil
        case .succeeded:
            ToolCallSummary(
                name: call.name, arguments: call.arguments?.compactDescription ?? "",
                result: .succeeded(bytes: call.output?.utf8.count ?? 0), answerOffset: answerOffset)
        case .failed(let reason):
            ToolCallSummary(
                name: call.name, arguments: call.arguments?.compactDescription ?? "",
                result: .failed(reason), answerOffset: answerOffset)
        }
    }

    /// Prints a whole Markdown document: rendered on a terminal, raw (sanitised) otherwise.
    public static func printDocument(_ markdown: String, context: CommandContext) {
        let capabilities = context.terminal(fd: 1)
        let mode = MarkdownMode(rawValue: context.markdownMode) ?? .auto
        if mode.rendersMarkdown(on: capabilities) {
            context.output.send(laidOut: MarkdownRenderer(capabilities: capabilities, mode: mode).render(markdown))
        } else {
            context.output.send(SanitizedMessage(untrusted: markdown))
        }
    }
}

extension JSONValue {
    /// Arguments as a tool call line shows them: `{query: "sse", limit: 5}`.
    var compactDescription: String {
        switch self {
        case .object(let members):
            "{" + members.keys.sorted().map { "\($0): \(members[$0]!.compactDescription)" }.joined(separator: ", ")
                + "}"
        case .array(let items): "[" + items.map(\.compactDescription).joined(separator: ", ") + "]"
        case .string(let text): "\"\(text)\""
        default: jsonString
        }
    }
}

extension ReplyStats {
    /// The figures of the server's `stats` the line after a reply shows.
    init(_ stats: ChatStats) {
        self.init(
            tokens: stats.totalOutputTokens ?? 0, tokensPerSecond: stats.tokensPerSecond,
            timeToFirstToken: stats.timeToFirstTokenSeconds, modelLoadTime: stats.modelLoadTimeSeconds)
    }
}
