import TestSupport
import Testing

@testable import TerminalMarkdown

/// `LineModeReplyView`: what Emacs's M-x shell and a `TERM=dumb` terminal get, appended lines only.
struct LineModeReplyViewTests {
    static let comint = TerminalCapabilities(isDumb: true, emacs: .comint, width: 60)
    static let dumb = TerminalCapabilities(isDumb: true, width: 60)

    private func streamed(_ text: String, capabilities: TerminalCapabilities, seed: UInt64 = 7) -> String {
        let view = LineModeReplyView(sink: StringSink(), capabilities: capabilities, mode: .auto)
        for snapshot in Snapshots.random(text, seed: seed) { view.update(ReplySnapshot(answer: snapshot)) }
        view.update(ReplySnapshot(answer: text, isFinished: true))
        return view.sink.output
    }

    @Test(arguments: [comint, dumb], Corpus.documents.map(\.text))
    func streamedRepliesReadAsTheWholeRenderWithSGROnly(capabilities: TerminalCapabilities, text: String) {
        for seed: UInt64 in [7, 11, 23, 42] {
            let output = streamed(text, capabilities: capabilities, seed: seed)
            #expect(
                LineModeReplyView<StringSink>.unstyled(output)
                    == LineModeReplyView<StringSink>.unstyled(MarkdownRenderer(capabilities: capabilities).render(text)),
                "seed \(seed)")
        }
        let output = streamed(text, capabilities: capabilities)
        let whole = MarkdownRenderer(capabilities: capabilities).render(text)
        #expect(LineModeReplyView<StringSink>.unstyled(output) == LineModeReplyView<StringSink>.unstyled(whole))
        for sequence in output.components(separatedBy: "\u{1B}").dropFirst() {
            #expect(sequence.firstMatch(of: /^\[[0-9;]*m/) != nil, "only SGR: \(sequence.prefix(10).debugDescription)")
        }
        #expect(!output.contains("\r"))
        if capabilities == Self.dumb { #expect(!output.contains("\u{1B}")) }
    }

    /// A block far longer than `longTailBytes` (a line of code; a quoted paragraph of short lines, which streams
    /// through the quote's own stream) is rendered again only as it grows by half, so its rows come in bursts (it was
    /// rendered whole twice at every update, quadratic in its length), and it still reads as the whole render, with
    /// rows printed while it arrives.
    @Test(arguments: [
        "```python\n" + String(repeating: "x = 1; ", count: (64 << 10) / 7) + "\n```\n",
        (0..<1600).map { "> line \($0) of a long quoted paragraph" }.joined(separator: "\n") + "\n"
    ])
    func aVeryLongBlockIsPrintedInBurstsAndReadsAsTheWholeRender(text: String) {
        let view = LineModeReplyView(sink: StringSink(), capabilities: Self.comint, mode: .auto)
        let bytes = Array(text.utf8)
        var updates = 0
        var printing = 0
        for end in stride(from: 2048, to: bytes.count - 6, by: 2048) {
            let before = view.sink.output.utf8.count
            view.update(ReplySnapshot(answer: String(decoding: bytes[..<end], as: UTF8.self)))
            guard end > 2 * LineModeReplyView<StringSink>.longTailBytes else { continue }
            updates += 1
            if view.sink.output.utf8.count > before { printing += 1 }
        }
        let printedBeforeTheEnd = view.sink.output.utf8.count
        view.update(ReplySnapshot(answer: text, isFinished: true))
        let whole = MarkdownRenderer(capabilities: Self.comint).render(text)
        #expect(
            LineModeReplyView<StringSink>.unstyled(view.sink.output) == LineModeReplyView<StringSink>.unstyled(whole))
        #expect(printedBeforeTheEnd > whole.utf8.count / 2, "rows were printed while the block arrived")
        #expect(printing >= 2 && printing < updates / 2, "rows were printed at \(printing) of \(updates) updates")
    }

    /// A long block's rows wait for it to grow by half at most `longTailInterval` seconds of the reply: a slow one
    /// still prints a row as it fills.
    @Test func aSlowLongBlockPrintsItsRowsAtLeastEveryInterval() {
        let text = "```python\n" + String(repeating: "x = 1; ", count: (40 << 10) / 7)
        let view = LineModeReplyView(sink: StringSink(), capabilities: Self.comint, mode: .auto)
        let bytes = Array(text.utf8)
        var updates = 0
        var printing = 0
        for (step, end) in stride(from: 2048, to: bytes.count, by: 2048).enumerated() {
            let before = view.sink.output.utf8.count
            let seconds = Double(step) * LineModeReplyView<StringSink>.longTailInterval
            view.update(ReplySnapshot(elapsedSeconds: seconds, answer: String(decoding: bytes[..<end], as: UTF8.self)))
            guard end > 2 * LineModeReplyView<StringSink>.longTailBytes else { continue }
            updates += 1
            if view.sink.output.utf8.count > before { printing += 1 }
        }
        #expect(updates > 2 && printing == updates, "rows were printed at \(printing) of \(updates) updates")
    }

    @Test func comintGetsColoursAndADumbTerminalNone() {
        let text = "# Title\n\nSome **bold** and `code`.\n\n- item\n"
        #expect(streamed(text, capabilities: Self.comint).contains("\u{1B}[1mbold\u{1B}[0m"))
        #expect(!streamed(text, capabilities: Self.dumb).contains("\u{1B}"))
    }

    @Test func aLongParagraphIsShownRowByRowWhileItArrives() {
        let view = LineModeReplyView(sink: StringSink(), capabilities: Self.dumb)
        let paragraph = Array(repeating: "word", count: 60).joined(separator: " ")
        view.update(ReplySnapshot(answer: String(paragraph.prefix(150))))
        let early = view.sink.output.split(separator: "\n")
        #expect(early.count == 2, "the rows text flowed past are printed, the last one waits: \(view.sink.output)")
        view.update(ReplySnapshot(answer: paragraph + "\n\nNext"))
        view.update(ReplySnapshot(answer: paragraph + "\n\nNext", isFinished: true))
        #expect(
            view.sink.output == MarkdownRenderer(capabilities: Self.dumb).render(paragraph + "\n\nNext"),
            "each row once")
    }

    @Test func aTableWaitsForItsColumnsAndFitsTheWidth() {
        let table =
            "| name | description |\n|---|---|\n| alpha | a long cell that is wider than the whole terminal is |\n| b | c |\n"
        let view = LineModeReplyView(sink: StringSink(), capabilities: Self.dumb)
        view.update(ReplySnapshot(answer: String(table.prefix(60))))
        #expect(view.sink.output.isEmpty, "nothing of the table before its rows are known")
        view.update(ReplySnapshot(answer: table, isFinished: true))
        let lines = view.sink.output.split(separator: "\n")
        #expect(
            lines.first?.hasPrefix("┌") == true && lines.allSatisfy { DisplayWidth.of(String($0)) <= 60 },
            "\(view.sink.output)")
    }

    @Test func stagesAreLinesAtMostEveryFewSeconds() {
        let view = LineModeReplyView(sink: StringSink(), capabilities: Self.dumb)
        let steps: [(Double, Double)] = [(0.2, 0), (1.2, 0.1), (2.0, 0.3), (4.0, 0.3), (4.5, 0.6), (5.0, 0.9), (8.0, 1)]
        for (seconds, progress) in steps {
            view.update(
                ReplySnapshot(stage: .loadingModel("acme/thinker", progress: progress), elapsedSeconds: seconds))
        }
        view.update(ReplySnapshot(stage: .processingPrompt(progress: 0.5), elapsedSeconds: 8.2))
        let lines = view.sink.output.split(separator: "\n").map(String.init)
        #expect(
            lines
                == [
                    "Loading acme/thinker [#.........] 10% · 1.2 s", "Loading acme/thinker [######....] 60% · 4.5 s",
                    "Loading acme/thinker [##########] 100% · 8.0 s", "Processing prompt 50% · 8.2 s"
                ].map {
                    $0.replacingOccurrences(of: "[#.........]", with: "▕█░░░░░░░░░▏")
                        .replacingOccurrences(of: "[######....]", with: "▕██████░░░░▏")
                        .replacingOccurrences(of: "[##########]", with: "▕██████████▏")
                })
    }

    @Test func reasoningIsOneLineWhenItStartsAndTheSummaryWhenTheAnswerDoes() {
        let view = LineModeReplyView(sink: StringSink(), capabilities: Self.dumb)
        for end in stride(from: 10, through: 200, by: 10) {
            view.update(ReplySnapshot(elapsedSeconds: Double(end) / 10, reasoning: String(repeating: "r", count: end)))
        }
        view.update(
            ReplySnapshot(
                reasoning: String(repeating: "r", count: 200), reasoningSeconds: 20, answer: "Done.", isFinished: true))
        #expect(
            view.sink.output.split(separator: "\n") == ["▸ Reasoning…", "▸ Thought for 20.0 s · 200 chars", "Done."])
    }
}
