import TestSupport
import Testing

@testable import TerminalMarkdown

struct LiveReplyViewTests {
    /// A reply as the engine would report it: loading, prompt processing, reasoning, a tool call, the answer.
    static let script: [ReplySnapshot] = {
        let reasoning =
            "First I consider the question.\nThen I look up the docs.\nThe docs say SSE is a stream.\n"
            + "So the answer is simple."
        let answer =
            "## Server-sent events\n\nSSE is a **one-way** stream over HTTP.\n\n- one event per `data:` line\n- ends on close\n"
        var snapshots: [ReplySnapshot] = [
            ReplySnapshot(stage: .waiting, elapsedSeconds: 0.2),
            ReplySnapshot(stage: .loadingModel("acme/thinker", progress: 0.45), elapsedSeconds: 1.5),
            ReplySnapshot(stage: .loadingModel("acme/thinker", progress: 1), elapsedSeconds: 3.1),
            ReplySnapshot(stage: .processingPrompt(progress: 0.8), elapsedSeconds: 3.6)
        ]
        for end in stride(from: 20, through: reasoning.count, by: 20) {
            snapshots.append(ReplySnapshot(elapsedSeconds: 4, reasoning: String(reasoning.prefix(end))))
        }
        let tool = ToolCallSummary(name: "search_docs", arguments: "{query: \"sse\"}", result: .succeeded(bytes: 1234))
        let failed = ToolCallSummary(
            name: "open_browser", arguments: "{}", result: .failed("Cannot find tool open_browser"))
        snapshots.append(
            ReplySnapshot(
                reasoning: reasoning, reasoningCharacterCount: 3402, reasoningSeconds: 12.4,
                finishedToolCalls: [tool, failed]))
        for end in stride(from: 7, through: answer.count, by: 7) {
            snapshots.append(
                ReplySnapshot(
                    reasoning: reasoning, reasoningCharacterCount: 3402, reasoningSeconds: 12.4,
                    answer: String(answer.prefix(end)),
                    finishedToolCalls: [tool, failed]))
        }
        snapshots.append(
            ReplySnapshot(
                reasoning: reasoning, reasoningCharacterCount: 3402, reasoningSeconds: 12.4, answer: answer,
                finishedToolCalls: [tool, failed], isFinished: true,
                stats: ReplyStats(tokens: 3402, tokensPerSecond: 38.25, timeToFirstToken: 0.94)))
        return snapshots
    }()

    /// Plays `snapshots` into a screen model, checking the tail accounting, and returns the screen after each.
    private func play(_ snapshots: [ReplySnapshot], capabilities: TerminalCapabilities) -> [[String]] {
        let view = LiveReplyView(sink: StringSink(), capabilities: capabilities, mode: .always)
        var screen = TerminalScreen(width: capabilities.width, height: capabilities.height, widthOf: DisplayWidth.of)
        var written = 0
        var frames: [[String]] = []
        for snapshot in snapshots {
            let liveTop = screen.cursorRow - max(view.liveRows - 1, 0)
            let committed = screen.lines(above: liveTop)
            screen.resetTopmostRow()
            view.update(snapshot)
            screen.apply(String(view.sink.output.utf8.dropFirst(written))!)
            written = view.sink.output.utf8.count
            #expect(screen.topmostRow >= liveTop)
            #expect(screen.lines(above: liveTop) == committed)
            frames.append(screen.lines)
        }
        return frames
    }

    @Test(arguments: [Variant.color, .dumb])
    func replyFromLoadingToStats(variant: Variant) {
        let frames = play(Self.script, capabilities: variant.capabilities(width: 60))
        var film = ""
        var previous: [String]?
        for (index, frame) in frames.enumerated() where frame != previous {
            film += "--- snapshot \(index)\n" + frame.map { $0 + "\n" }.joined()
            previous = frame
        }
        assertGolden(film, named: "live-reply.\(variant.rawValue)-60", in: snapshotDirectory(for: #filePath))
    }

    @Test func stageLineIsReplacedInPlaceAndGoneWhenTheAnswerStarts() {
        let frames = play(Self.script, capabilities: TerminalCapabilities(width: 60))
        #expect(frames[0] == ["Waiting · 0.2 s"])
        #expect(frames[1] == ["Loading acme/thinker ▕████░░░░░░▏ 45% · 1.5 s"])
        #expect(frames[3] == ["Processing prompt 80% · 3.6 s"])
        #expect(
            !frames.last!.contains { $0.hasPrefix("Loading") || $0.hasPrefix("Processing") || $0.hasPrefix("Waiting") })
    }

    @Test func reasoningTailShowsTheLastLinesThenCollapses() {
        let frames = play(Self.script, capabilities: TerminalCapabilities(width: 60))
        let reasoningFrame = frames.first { $0.contains("So the answer is simple.") }!
        #expect(
            reasoningFrame.suffix(3) == [
                "Then I look up the docs.", "The docs say SSE is a stream.", "So the answer is simple."
            ])
        let final = frames.last!
        // The reasoning came before the tool calls, so its summary is committed above them.
        #expect(final.first == "▸ Thought for 12.4 s · 3,402 chars")
        #expect(final[1] == "⚙ search_docs {query: \"sse\"} … ✓ 1.2 KB")
        #expect(final[2] == "⚙ open_browser {} … ✗ Cannot find tool open_browser")
        #expect(final.last == "3,402 tokens · 38.3 tok/s · first token 0.9 s")
        #expect(!final.contains("First I consider the question."))
    }

    @Test func aToolCallLineFollowsTheTextThatCameBeforeIt() {
        let before = "Let me look that up in the docs first."
        let call = ToolCallSummary(
            name: "open_browser", arguments: "{}", result: .failed("no such tool"),
            answerOffset: before.utf8.count)
        let answer = before + "\n\nSSE is one-way."
        let frames = play(
            [
                // The call has ended but the text before it is not drawn yet: its line waits.
                ReplySnapshot(answer: "Let me look", finishedToolCalls: [call]),
                ReplySnapshot(answer: before, finishedToolCalls: [call]),
                ReplySnapshot(answer: answer, finishedToolCalls: [call], isFinished: true)
            ], capabilities: TerminalCapabilities(noColor: true, width: 60))
        #expect(!frames[0].contains { $0.contains("open_browser") })
        #expect(frames.last == [before, "⚙ open_browser {} … ✗ no such tool", "", "SSE is one-way."])
    }

    @Test(arguments: [
        (ReplyOutcome.cancelled, "⚠ incomplete: cancelled"),
        (.failed("server\u{1B}[2J gone"), "⚠ incomplete: server␛[2J gone"),
        (.error("internal\u{1B}[2J error"), "⚠ error: internal␛[2J error")
    ])
    func incompleteRepliesAreMarked(outcome: ReplyOutcome, mark: String) {
        let frames = play(
            [
                ReplySnapshot(answer: "Partial ans"),
                ReplySnapshot(
                    answer: "Partial answer", isFinished: true,
                    stats: ReplyStats(tokens: 3, tokensPerSecond: 2), outcome: outcome)
            ],
            capabilities: TerminalCapabilities(width: 60))
        #expect(frames.last == ["Partial answer", "3 tokens · 2.0 tok/s · " + mark])
    }

    /// A reply of one token says "1 token"; one of none (a server error) shows no speed, only its mark.
    @Test func tokenFiguresReadAsUsersCountThem() {
        let presenter = ReplyPresenter(capabilities: TerminalCapabilities(isDumb: true, width: 80))
        #expect(
            presenter.statsLine(ReplyStats(tokens: 1, tokensPerSecond: 2), outcome: .complete) == "1 token · 2.0 tok/s")
        // A speed the server did not report is left out, not shown as 0.0 tok/s.
        #expect(
            presenter.statsLine(ReplyStats(tokens: 12, tokensPerSecond: nil, timeToFirstToken: 0.5), outcome: .complete)
                == "12 tokens · first token 0.5 s")
        #expect(
            presenter.statsLine(ReplyStats(tokens: 0, tokensPerSecond: 42.5), outcome: .failed("server error"))
                == "⚠ incomplete: server error")
    }

    /// At 40 columns the stats line leaves out the figures that do not fit, whole: it never ends in half a number.
    @Test func aNarrowStatsLineDropsWholeFigures() {
        let presenter = ReplyPresenter(capabilities: TerminalCapabilities(isDumb: true, width: 40))
        let stats = ReplyStats(tokens: 511_803, tokensPerSecond: 42.5, timeToFirstToken: 0.1, modelLoadTime: 12.25)
        #expect(presenter.statsLine(stats, outcome: .complete) == "511,803 tokens · 42.5 tok/s")
    }

    /// Streams `streamed`, then shows `final` as a replacement and finishes; returns the last screen.
    private func replace(_ streamed: String, with final: String) -> [String] {
        let capabilities = TerminalCapabilities(width: 60)
        let view = LiveReplyView(sink: StringSink(), capabilities: capabilities, mode: .always)
        var screen = TerminalScreen(width: capabilities.width, height: capabilities.height, widthOf: DisplayWidth.of)
        view.update(ReplySnapshot(answer: streamed))
        view.update(replacingAnswer: ReplySnapshot(answer: final))
        view.update(ReplySnapshot(answer: final, isFinished: true))
        screen.apply(view.sink.output)
        return screen.lines
    }

    @Test func aReplacementThatKeepsTheCommittedLinesRedrawsOnlyTheTail() {
        let lines = replace("First paragraph.\n\nSecond\ndra", with: "First paragraph.\n\nSecond, final.")
        #expect(lines == ["First paragraph.", "", "Second, final."])
    }

    @Test func aReplacementThatChangesCommittedLinesIsNotedAndShownInFull() {
        let lines = replace("First paragraph.\n\nSecond\ndra", with: "Revised first.\n\nSecond, final.")
        #expect(
            lines == [
                "First paragraph.", "", "↻ The server's final answer differs from the streamed text:",
                "Revised first.", "", "Second, final."
            ])
    }

    @Test(arguments: [(0.0, "▕░░░░░░░░░░▏"), (0.45, "▕████░░░░░░▏"), (1.0, "▕██████████▏"), (1.7, "▕██████████▏")])
    func progressBar(progress: Double, bar: String) {
        #expect(ReplyPresenter(capabilities: TerminalCapabilities()).progressBar(progress) == bar)
    }

    @Test(arguments: [(0, "0 B"), (999, "999 B"), (1234, "1.2 KB"), (1_250_000, "1.3 MB")])
    func byteSizes(count: Int, text: String) {
        #expect(ReplyPresenter.bytes(count) == text)
    }

    @Test func longToolArgumentsAreShortenedToOneRow() {
        let presenter = ReplyPresenter(capabilities: TerminalCapabilities(isDumb: true, width: 40))
        let line = presenter.toolCallLine(
            ToolCallSummary(
                name: "search", arguments: String(repeating: "x", count: 100),
                result: .succeeded(bytes: 10)))
        #expect(DisplayWidth.of(line) <= 39)
        #expect(line.hasSuffix("… ✓ 10 B"))
    }

    @Test func reasoningTailLooksOnlyAtTheLatestWindow() {
        let presenter = ReplyPresenter(capabilities: TerminalCapabilities(isDumb: true, width: 40))
        let reasoning = "old line\n" + String(repeating: "y", count: ReplyPresenter.reasoningWindow)
        #expect(presenter.reasoningTail(reasoning, lineCount: 3).count == 3)
        #expect(!presenter.reasoningTail(reasoning, lineCount: 200).contains("old line"))
    }

    /// Ctrl-C while a step of a rendered backlog is on its way: what the step rendered is not drawn, and the end
    /// adds only its line below what was on the screen.
    @Test func aStepRenderedInACancelledTaskIsNotDrawn() async {
        let (drawn, afterSignal) = await Task {
            let view = replyView(
                sink: StringSink(), capabilities: TerminalCapabilities(width: 60), mode: .always, reasoningLines: 3)
            func output() -> String { (view as! LiveReplyView<StringSink>).sink.output }
            view.update(ReplySnapshot(), appendingAnswer: "First paragraph, drawn.\n\nSecond paragraph, drawn.\n\n")
            let drawn = output()
            withUnsafeCurrentTask { $0?.cancel() }
            view.update(ReplySnapshot(), appendingAnswer: "Third paragraph, rendered after the signal.\n\nFourth.\n\n")
            view.stop(ReplySnapshot(isFinished: true, outcome: .shownInPart))
            return (drawn, String(output().utf8.dropFirst(drawn.utf8.count))!)
        }.value
        #expect(drawn.contains("First paragraph, drawn."))
        #expect(!afterSignal.contains("Third paragraph"), "a step rendered after the signal was drawn: \(afterSignal)")
        #expect(afterSignal.contains("shown in part"))
        #expect(
            afterSignal.split(separator: "\n").count == 1, "more than the end line after the signal: \(afterSignal)")
    }

    /// In line mode (Emacs's M-x shell) a cancelled reply still prints everything that arrived, the open last rows
    /// included, then the end line below a blank one (Ctrl-C may have left `^C` after the last row).
    @Test func aLineModeReplyPrintsWhatArrivedAfterTheSignal() async {
        let output = await Task {
            let view = replyView(
                sink: StringSink(), capabilities: LineModeReplyViewTests.dumb, mode: .always, reasoningLines: 3)
            view.update(ReplySnapshot(), appendingAnswer: "First paragraph, drawn.\n\n")
            withUnsafeCurrentTask { $0?.cancel() }
            view.update(ReplySnapshot(), appendingAnswer: "Second paragraph, after the signal.\n\nStill open")
            view.stop(ReplySnapshot(isFinished: true, outcome: .cancelled))
            return (view as! LineModeReplyView<StringSink>).sink.output
        }.value
        #expect(output.contains("Second paragraph, after the signal.") && output.contains("Still open"), "\(output)")
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.last?.contains("cancelled") == true && lines.dropLast().last?.isEmpty == true, "\(lines)")
    }

    /// Ctrl-C while a large step is being written to a slow terminal: the write stops after the piece on its way,
    /// synchronized output is closed, and the end line follows the last whole line.
    @Test func aStepCancelledWhileItIsWrittenStopsAfterAPiece() async {
        let paragraphs = (1...3000).map { "Paragraph \($0) of a long backlog, written in one step.\n\n" }.joined()
        let (output, cancelledAt) = await Task {
            let sink = CancellingSink(cancelAfter: 20_000)
            let view = replyView(
                sink: sink, capabilities: TerminalCapabilities(width: 60), mode: .always, reasoningLines: 3)
            view.update(ReplySnapshot(), appendingAnswer: paragraphs)
            view.stop(ReplySnapshot(isFinished: true, outcome: .shownInPart))
            let written = (view as! LiveReplyView<CancellingSink>).sink
            return (written.output, written.cancelledAt)
        }.value
        #expect(cancelledAt > 0)
        // Cancelled during the piece that passed 20,000 bytes: that piece is finished, nothing after it.
        #expect(
            output.utf8.count < 20_000 + 2 * (16 << 10),
            "\(output.utf8.count) bytes written, cancelled at \(cancelledAt)")
        #expect(!output.contains("Paragraph 2000 "))
        let lines = screenLines(output, width: 60).filter { !$0.isEmpty }
        #expect(lines.last?.contains("shown in part") == true)
        #expect(lines.dropLast().last?.contains("Paragraph") == true, "the end line follows the last whole line")
        #expect(
            output.components(separatedBy: "\u{1B}[?2026h").count
                == output.components(separatedBy: "\u{1B}[?2026l").count)
    }
}

/// Collects output and cancels the current task once `cancelAfter` bytes have been written: Ctrl-C arriving while a
/// large step is written.
private struct CancellingSink: TerminalSink {
    let cancelAfter: Int
    var output = ""
    /// Bytes written when the task was cancelled; 0 while it was not.
    var cancelledAt = 0

    mutating func write(_ text: String) {
        output += text
        if cancelledAt == 0 && output.utf8.count >= cancelAfter {
            cancelledAt = output.utf8.count
            withUnsafeCurrentTask { $0?.cancel() }
        }
    }
}
