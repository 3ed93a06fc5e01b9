import Chat
import Foundation
import LMStudio
import TerminalMarkdown

/// Shows a streaming reply: rendered in the terminal's live area, or as plain appended text.
///
/// On a terminal the whole reply (stage line, reasoning tail, tool calls, Markdown answer, stats line)
/// goes through one `LiveReplyView`. When standard output is not a terminal, the answer's new text is
/// appended raw (control characters neutralised) and, when standard error is a terminal, the stages,
/// reasoning tail and stats line are shown there.
public actor ReplyDisplay {
    private let answerView: LiveReplyView<FileDescriptorSink>?
    private let statusView: LiveReplyView<FileDescriptorSink>?
    private let plainOutput: StandardStream?
    private let modelName: String
    /// Whether stages and the reasoning tail are shown (standard error is a terminal).
    private let showsStatus: Bool
    private var printedAnswer = ""
    /// UTF-8 length of the answer prefix the live view has drawn.
    private var drawnAnswerBytes = 0
    /// The most new answer text one terminal update renders, so a reply arriving faster than the
    /// terminal draws it never makes one update (or Ctrl-C) wait seconds; later updates catch up.
    static let renderStepBytes = 64 << 10
    private let started = ContinuousClock.now
    private var reasoningStarted: ContinuousClock.Instant?
    private var reasoningEnded: ContinuousClock.Instant?

    /// Creates a display: `rendered` decides whether standard output gets the live view.
    init(rendered: Bool, statusOnStandardError: Bool, capabilities: TerminalCapabilities,
         errorCapabilities: TerminalCapabilities, mode: MarkdownMode, reasoningLines: Int, modelName: String) {
        self.modelName = modelName
        self.showsStatus = statusOnStandardError
        if rendered {
            let view = LiveReplyView(sink: FileDescriptorSink(fd: 1), capabilities: capabilities, mode: mode, reasoningLines: reasoningLines)
            answerView = view
            statusView = nil
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
        let output = TerminalCapabilities.detect(fd: 1, environment: context.environment)
        let errors = TerminalCapabilities.detect(fd: 2, environment: context.environment)
        let mode = MarkdownMode(rawValue: context.markdownMode) ?? .auto
        let rendered = output.isTTY && mode != .never || mode == .always
        return ReplyDisplay(rendered: rendered, statusOnStandardError: errors.allowsCursorMovement, capabilities: output,
                            errorCapabilities: errors, mode: mode, reasoningLines: context.configuration.reasoningTailLines,
                            modelName: modelName)
    }

    /// Shows one snapshot.
    public func show(_ snapshot: DisplaySnapshot) {
        let now = ContinuousClock.now
        if snapshot.reasoningCharacterCount > 0, reasoningStarted == nil { reasoningStarted = now }
        if !snapshot.answer.isEmpty || snapshot.isFinal, reasoningStarted != nil, reasoningEnded == nil { reasoningEnded = now }
        var reply = replySnapshot(snapshot, now: now)
        if let answerView {
            // Stages and reasoning belong to standard error: shown only when it is a terminal too.
            if !showsStatus {
                reply.stage = nil
                reply.reasoning = ""
                reply.reasoningCharacterCount = 0
            }
            reply.answer = Self.drawablePrefix(of: reply.answer, drawn: drawnAnswerBytes, ending: snapshot.ending)
            drawnAnswerBytes = reply.answer.utf8.count
            answerView.update(reply)
            return
        }
        appendPlainAnswer(snapshot.answer, final: snapshot.isFinal)
        if let statusView {
            var status = reply
            status.answer = ""
            if !snapshot.answer.isEmpty {
                status.stage = nil
                status.reasoning = ""
            }
            statusView.update(status)
        }
    }

    /// Applies a new terminal size to what is drawn from now on (after SIGWINCH).
    public func resize(width: Int, height: Int) {
        answerView?.width = width
        answerView?.height = height
    }

    /// The part of `answer` to draw now: up to ``renderStepBytes`` more than was drawn (cut after a line end
    /// or at a character boundary), all of it once complete or failed, and nothing new once cancelled (the text is saved).
    static func drawablePrefix(of answer: String, drawn: Int, ending: DisplaySnapshot.Ending) -> String {
        let utf8 = answer.utf8
        let limit: Int
        switch ending {
        case .cancelled: limit = drawn
        case .streaming: limit = drawn + renderStepBytes
        case .completed, .interrupted: return answer
        }
        guard utf8.count > limit else { return answer }
        let windowStart: String.Index = utf8.index(utf8.startIndex, offsetBy: min(drawn, limit))
        var cut: String.Index = utf8.index(utf8.startIndex, offsetBy: limit)
        if let lineEnd: String.Index = utf8[windowStart..<cut].lastIndex(of: UInt8(ascii: "\n")) {
            cut = utf8.index(after: lineEnd)
        }
        // Back off continuation bytes (10xxxxxx) so the cut falls on a character boundary.
        while cut > utf8.startIndex, utf8[cut] & 0xC0 == 0x80 { cut = utf8.index(before: cut) }
        return String(answer[..<cut])
    }

    /// Appends what the answer gained since the last snapshot.
    private func appendPlainAnswer(_ answer: String, final: Bool) {
        guard let plainOutput else { return }
        if answer.hasPrefix(printedAnswer) {
            let added = answer.utf8.dropFirst(printedAnswer.utf8.count)
            if !added.isEmpty { plainOutput.send(UntrustedText.sanitize(String(decoding: added, as: UTF8.self))) }
            printedAnswer = answer
        }
        if final, !printedAnswer.isEmpty, !printedAnswer.hasSuffix("\n") { plainOutput.send("\n") }
    }

    private func replySnapshot(_ snapshot: DisplaySnapshot, now: ContinuousClock.Instant) -> ReplySnapshot {
        let stage: ReplyStage? = switch snapshot.stage {
        case .loadingModel(let progress): .loadingModel(snapshot.loadingModelInstanceId ?? modelName, progress: progress)
        case .processingPrompt(let progress): .processingPrompt(progress: progress)
        case .waiting where snapshot.answer.isEmpty: .waiting
        default: nil
        }
        let reasoningSeconds = reasoningStarted.map { ((reasoningEnded ?? now) - $0).seconds } ?? 0
        let toolCalls = snapshot.toolCalls.compactMap { call -> ToolCallSummary? in
            switch call.status {
            case .running: nil
            case .succeeded: ToolCallSummary(name: call.name, arguments: call.arguments?.compactDescription ?? "",
                                             result: .succeeded(bytes: call.output?.utf8.count ?? 0))
            case .failed(let reason): ToolCallSummary(name: call.name, arguments: call.arguments?.compactDescription ?? "",
                                                      result: .failed(reason))
            }
        }
        let outcome: TerminalMarkdown.ReplyOutcome = switch snapshot.ending {
        case .cancelled: .cancelled
        case .interrupted(let reason): .failed(reason)
        case .completed, .streaming:
            snapshot.errors.first.map { .failed(LMStudioError.describe(streamError: $0)) } ?? .complete
        }
        let stats = snapshot.stats.map {
            ReplyStats(tokens: $0.totalOutputTokens ?? 0, tokensPerSecond: $0.tokensPerSecond ?? 0,
                       timeToFirstToken: $0.timeToFirstTokenSeconds)
        }
        return ReplySnapshot(stage: stage, elapsedSeconds: (now - started).seconds, reasoning: snapshot.reasoningPreview,
                             reasoningCharacterCount: snapshot.reasoningCharacterCount, reasoningSeconds: reasoningSeconds,
                             answer: snapshot.answer, finishedToolCalls: toolCalls, isFinished: snapshot.isFinal,
                             stats: stats, outcome: outcome)
    }

    /// Prints a whole Markdown document: rendered on a terminal, raw (sanitised) otherwise.
    public static func printDocument(_ markdown: String, context: CommandContext) {
        let capabilities = TerminalCapabilities.detect(fd: 1, environment: context.environment)
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
