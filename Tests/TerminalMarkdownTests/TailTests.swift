import Foundation
import TestSupport
import Testing

@testable import TerminalMarkdown

struct TailTests {
    /// Feeds `snapshots` one by one into a screen model and checks that each update only moves within the live
    /// area and leaves every committed row as it was; returns the largest live area seen.
    @discardableResult
    private func checkTailAccounting(_ snapshots: [String], width: Int, height: Int) -> Int {
        let capabilities = TerminalCapabilities(width: width, height: height, hyperlinks: true)
        let renderer = StreamRenderer(sink: StringSink(), capabilities: capabilities, mode: .always)
        var screen = TerminalScreen(width: width, height: height, widthOf: DisplayWidth.of)
        var written = 0
        var tallest = 0
        for snapshot in snapshots {
            let liveTop = screen.cursorRow - max(renderer.liveRows - 1, 0)
            let committed = screen.lines(above: liveTop)
            screen.resetTopmostRow()
            renderer.update(snapshot)
            let output = renderer.sink.output
            screen.apply(String(output.utf8.dropFirst(written))!)
            written = output.utf8.count
            tallest = max(tallest, renderer.liveRows)
            #expect(screen.topmostRow >= liveTop, "cursor went above the live area")
            #expect(screen.lines(above: liveTop) == committed, "a committed row changed")
            #expect(renderer.liveRows < height)
            #expect(screen.unknownSequences.isEmpty)
            if screen.topmostRow < liveTop || screen.lines(above: liveTop) != committed { break }
        }
        return tallest
    }

    @Test(arguments: Corpus.documents.map(\.name), [(80, 1000), (40, 8)])
    func updatesNeverTouchCommittedRows(name: String, size: (width: Int, height: Int)) {
        let text = Corpus.documents.first { $0.name == name }!.text
        for seed in UInt64(0)..<5 {
            checkTailAccounting(Snapshots.random(text, seed: seed), width: size.width, height: size.height)
        }
    }

    private func lineByLine(_ text: String) -> [String] {
        var snapshots: [String] = []
        var current = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            current += line + "\n"
            snapshots.append(current)
        }
        return snapshots
    }

    /// An unfinished line of code far longer than the live area shows is previewed by its end: the tail holds about
    /// three screens of it however long the line grows (a 64 KiB line was highlighted and laid out whole at every
    /// update), the rows shown read as the end of the whole line's tail (laid out from a cut, their breaks may differ
    /// until the line is committed), and the finished line is committed whole.
    @Test(arguments: [("```python\n", "x = 1; "), ("```\n", "日本語のコード "), ("```\n", "🇯🇵🇫🇷 ")])
    func aLongUnfinishedLineOfCodeIsPreviewedByItsEnd(opening: String, unit: String) {
        let (width, rows) = (40, 7)
        let capabilities = TerminalCapabilities(width: width, height: rows + 1, hyperlinks: true)
        let reference = MarkdownRenderer(capabilities: capabilities, mode: .always)
        var shown = MarkdownStream(renderer: reference.blockRenderer, rendersMarkdown: true)
        var whole = shown
        let line = opening + String(repeating: unit, count: (8 << 10) / unit.utf8.count)
        /// What rows read as, without styles, spaces or the continuation marker.
        func reading(_ rows: some Sequence<String>) -> String {
            rows.map(LineModeReplyView<StringSink>.unstyled).joined().filter { !$0.isWhitespace && $0 != "↪" }
        }
        var committed: [String] = []
        var previewed = 0
        let bytes = Array(line.utf8)
        for step in stride(from: 256, through: bytes.count, by: 256) {
            let end = bytes[step...].firstIndex { !UTF8.isContinuation($0) } ?? bytes.count
            let snapshot = String(decoding: bytes[..<end], as: UTF8.self)
            let update = shown.update(snapshot, showingRows: rows)
            let full = whole.update(snapshot).tail
            committed += update.committed
            #expect(update.tail.count <= 4 * rows, "at \(end) bytes")
            let seen = reading(update.tail.suffix(rows))
            #expect(seen.count > 3 * rows && reading(full).hasSuffix(seen), "at \(end) bytes: \(seen)")
            if full.count > 2 * update.tail.count { previewed += 1 }
        }
        #expect(previewed > 10, "the line was previewed by its end")
        committed += shown.finish(line + "\n")
        #expect(committed == reference.lines(line + "\n"))
    }

    /// A preview cut far from any ASCII character falls between two flags, never inside one: a cut after an odd
    /// number of regional indicators would pair every later flag's halves wrongly on the terminal.
    @Test(arguments: 300...330)
    func aPreviewCutInARunOfFlagsKeepsThemPaired(indicators: Int) {
        let line = "x" + String(repeating: "\u{1F1EF}", count: indicators)
        let shown = MarkdownStream.FenceState.preview(line, screen: 60)
        let skipped = line.utf8.count - shown.utf8.count - 1
        #expect(shown.utf8.count < line.utf8.count && shown.unicodeScalars.allSatisfy { $0 == "\u{1F1EF}" })
        #expect(skipped % 8 == 0, "the cut leaves \(skipped / 4) regional indicators before it")
    }

    /// A quote or list item long enough to stream through its own stream holds its unfinished paragraph there: a
    /// snapshot that ends at a line's end, nothing of the next line yet, still shows it (the tail went blank, and the
    /// paragraph blinked out of the live area until the next line began).
    @Test(arguments: [("> ", "> "), ("- ", "  ")])
    func aLongQuoteOrItemKeepsItsParagraphInTheTailAtALinesEnd(first: String, continuation: String) {
        let capabilities = TerminalCapabilities(width: 60, height: 40, hyperlinks: true)
        var stream = MarkdownStream(
            renderer: MarkdownRenderer(capabilities: capabilities, mode: .always).blockRenderer, rendersMarkdown: true)
        var snapshot = ""
        for index in 0..<200 {
            snapshot += (index == 0 ? first : continuation) + "line \(index) of a long paragraph\n"
            let words = stream.update(snapshot).tail.map(LineModeReplyView<StringSink>.unstyled).joined(separator: " ")
                .split(whereSeparator: { $0 == " " || $0 == "│" || $0 == "•" }).joined(separator: " ")
            #expect(words.hasSuffix("line \(index) of a long paragraph"), "after line \(index): \(words.suffix(80))")
        }
    }

    /// A table streaming row by row keeps its bottom border below its rows when a snapshot ends at a row's end (the
    /// border blinked out of the live area at each row until the next began).
    @Test func aStreamingTableKeepsItsBottomBorderAtARowsEnd() {
        let capabilities = TerminalCapabilities(width: 60, height: 40, hyperlinks: true)
        var stream = MarkdownStream(
            renderer: MarkdownRenderer(capabilities: capabilities, mode: .always).blockRenderer, rendersMarkdown: true)
        var snapshot = "| name | value |\n|---|---|\n"
        for index in 0..<(BlockRenderer.tableWidthRows + 20) {
            snapshot += "| row \(index) | \(index * 7) |\n"
            let tail = stream.update(snapshot).tail
            #expect(
                tail.last.map { LineModeReplyView<StringSink>.unstyled($0).hasPrefix("└") } == true,
                "after row \(index)")
        }
    }

    @Test func openCodeFenceCommitsEachLine() {
        let text = "```c\n" + (1...500).map { "int line\($0) = \($0);" }.joined(separator: "\n")
        #expect(checkTailAccounting(lineByLine(text), width: 80, height: 1000) <= 1)
    }

    @Test func longListCommitsFinishedItems() {
        let text = (1...300).map { "\($0). item number \($0) with some words" }.joined(separator: "\n")
        #expect(checkTailAccounting(lineByLine(text), width: 80, height: 1000) <= 2)
    }

    @Test func longTableCommitsRowsOnceItsWidthsAreKnown() {
        let text = "| n | square |\n|---|---|\n" + (1...300).map { "| \($0) | \($0 * $0) |" }.joined(separator: "\n")
        let tallest = checkTailAccounting(lineByLine(text), width: 80, height: 1000)
        #expect(tallest <= BlockRenderer.tableWidthRows + 5)
    }

    @Test func longQuoteCommitsItsParagraphs() {
        let text = (0..<600).map { "> paragraph \($0) of a long quote" }.joined(separator: "\n>\n")
        #expect(checkTailAccounting(lineByLine(text), width: 80, height: 100_000) < MarkdownStream.containerLimit / 16)
    }

    @Test func longCodeFenceInAListItemCommitsEachLine() {
        let text = "- Build it:\n\n  ```sh\n" + (0..<1000).map { "  make target\($0)" }.joined(separator: "\n")
        #expect(checkTailAccounting(lineByLine(text), width: 80, height: 100_000) < MarkdownStream.containerLimit / 8)
    }

    @Test func hugeParagraphFallsBackToPlainLines() {
        let text = (1...6000).map { "word\($0) continues the same paragraph" }.joined(separator: "\n")
        let snapshots = lineByLine(text).enumerated().filter { $0.offset % 50 == 0 }.map(\.element)
        let tallest = checkTailAccounting(snapshots, width: 80, height: 100_000)
        #expect(tallest < MarkdownStream.fallbackLimit / 64)
    }

    @Test func tableInProgressIsShownProvisionallyAndSettles() {
        let renderer = StreamRenderer(sink: StringSink(), capabilities: TerminalCapabilities(width: 80), mode: .always)
        renderer.update("| a | b |\n|---|---|\n| 1 |")
        #expect(renderer.liveRows == 5)
        renderer.finish("| a | b |\n|---|---|\n| 1 | wide cell |\n")
        #expect(
            screenLines(renderer.sink.output, width: 80) == [
                "┌───┬───────────┐", "│ a │ b         │", "├───┼───────────┤", "│ 1 │ wide cell │", "└───┴───────────┘"
            ])
    }
}

struct AppendOnlyTests {
    static let plainTerminals: [TerminalCapabilities] = [
        TerminalCapabilities(isTTY: false, width: 60),
        TerminalCapabilities(isDumb: true, width: 60),
        TerminalCapabilities(insideEmacs: true, width: 60)
    ]

    @Test(arguments: plainTerminals, Corpus.documents.map(\.text))
    func appendsFinishedBlocksWithoutCursorMovement(capabilities: TerminalCapabilities, text: String) {
        let snapshots = Snapshots.random(text, seed: 7)
        let renderer = StreamRenderer(sink: StringSink(), capabilities: capabilities, mode: .always)
        for snapshot in snapshots { renderer.update(snapshot) }
        #expect(!renderer.sink.output.isEmpty, "nothing streamed before the end")
        renderer.finish(text)
        #expect(!renderer.sink.output.contains("\u{1B}"))
        #expect(renderer.sink.output == MarkdownRenderer(capabilities: capabilities, mode: .always).render(text))
    }

    @Test func paragraphSplitOffByATableIsCommittedBeforeTheEnd() {
        let renderer = StreamRenderer(
            sink: StringSink(), capabilities: TerminalCapabilities(isDumb: true, width: 40), mode: .always)
        renderer.update("Intro line\n| a | b |\n|---|---|\n| 1 | 2 |\n\nNext paragraph\n\nmo")
        #expect(renderer.sink.output == "Intro line\n\n┌───┬───┐\n│ a │ b │\n├───┼───┤\n│ 1 │ 2 │\n└───┴───┘\n")
    }

    @Test func rawModeStreamsSanitisedTextLineByLine() {
        let text = "# not a heading\n**kept** as is\u{1B}[2J\npartial"
        let capabilities = TerminalCapabilities(width: 80)
        let output = streamedOutput(
            Snapshots.scalarByScalar(text), final: text, capabilities: capabilities, mode: .never)
        #expect(screenLines(output, width: 80) == ["# not a heading", "**kept** as is␛[2J", "partial"])
    }

    @Test func widthChangeAppliesToWhatFollows() {
        let renderer = StreamRenderer(
            sink: StringSink(), capabilities: TerminalCapabilities(isTTY: false, width: 80), mode: .always)
        let paragraph = String(repeating: "word ", count: 20)
        renderer.update(paragraph + "\n\nshort line\n")
        renderer.width = 40
        renderer.finish(paragraph + "\n\nshort line\n" + paragraph + "\n")
        let lines = screenLines(renderer.sink.output, width: 80)
        #expect(lines.count == 6)
        #expect(lines[0].count > 40)
        #expect(lines[2...].allSatisfy { $0.count <= 40 })
    }
}

struct CapabilityTests {
    @Test func pipesAreNotTerminals() {
        let capabilities = TerminalCapabilities.detect(
            fd: -1, environment: ["TERM": "xterm-256color", "LANG": "en_US.UTF-8"])
        #expect(!capabilities.isTTY && !capabilities.allowsCursorMovement)
        #expect(capabilities.width == 80 && capabilities.isUTF8)
    }

    @Test(arguments: [
        (["TERM": "dumb"], "dumb"), (["INSIDE_EMACS": "29.1,comint"], "emacs"), (["NO_COLOR": "1"], "nocolor"),
        (["NO_COLOR": ""], "color")
    ])
    func environmentFlags(environment: [String: String], expected: String) {
        let capabilities = TerminalCapabilities.detect(fd: -1, environment: environment)
        #expect(capabilities.isDumb == (expected == "dumb"))
        #expect(capabilities.insideEmacs == (expected == "emacs"))
        #expect(capabilities.noColor == (expected == "nocolor"))
    }

    @Test(arguments: [
        (["LANG": "C"], false), (["LANG": "de_DE.utf8"], true), (["LC_ALL": "C", "LANG": "en_US.UTF-8"], false),
        (["LC_CTYPE": "en_US.UTF-8", "LANG": "C"], true), ([:], false)
    ])
    func utf8Locale(environment: [String: String], utf8: Bool) {
        #expect(TerminalCapabilities.detect(fd: -1, environment: environment).isUTF8 == utf8)
    }

    @Test(arguments: [
        (["TERM_PROGRAM": "iTerm.app"], true), (["TERM": "xterm-kitty"], true), (["VTE_VERSION": "7200"], true),
        (["VTE_VERSION": "4200"], false), (["TERM_PROGRAM": "WezTerm", "TMUX": "/tmp/x"], false),
        (["TERM": "xterm-256color"], false), (["TERM": "xterm", "FORCE_HYPERLINK": "1"], true),
        (["WT_SESSION": "abc"], true)
    ])
    func hyperlinkHeuristic(environment: [String: String], supported: Bool) {
        #expect(TerminalCapabilities.detect(fd: -1, environment: environment).hyperlinks == supported)
    }

    @Test func asciiTablesAndBulletsWhenTheLocaleIsNotUTF8() {
        let capabilities = TerminalCapabilities(isDumb: true, isUTF8: false, width: 40)
        let lines = MarkdownRenderer(capabilities: capabilities, mode: .always).lines(
            "- [x] a\n\n| a |\n|---|\n| b |\n\n---")
        #expect(
            lines == ["- [x] a", "", "+---+", "| a |", "+---+", "| b |", "+---+", "", String(repeating: "-", count: 40)]
        )
    }

    /// `NO_COLOR` keeps the layout and the attributes; inline code, whose only mark was its colour, keeps its
    /// backticks, and a code block its fences.
    @Test func noColorKeepsLayoutAndAttributesAndMarksCode() {
        let text = "# Title\n\n**bold** `code`\n\n```sh\nls\n```"
        let colored = MarkdownRenderer(capabilities: TerminalCapabilities(), mode: .always).render(text)
        let plain = MarkdownRenderer(capabilities: TerminalCapabilities(noColor: true), mode: .always).render(text)
        #expect(colored.contains("95m"))
        #expect(!plain.contains("95m") && !plain.contains("36m") && plain.contains("\u{1B}[1m"))
        #expect(screenLines(colored, width: 80) == ["# Title", "", "bold code", "", "sh", "ls", "╶──"])
        #expect(screenLines(plain, width: 80) == ["# Title", "", "bold `code`", "", "```sh", "ls", "```"])
    }
}

struct RedrawProtocolTests {
    @Test func redrawBytesMatchGolden() {
        let text = "# Title\n\nA paragraph that streams in.\n\n```sh\necho hi\n```\n"
        let snapshots = [
            "# Ti", "# Title\n\nA para", "# Title\n\nA paragraph that streams in.\n\n```s",
            "# Title\n\nA paragraph that streams in.\n\n```sh\necho hi\n"
        ]
        let output = streamedOutput(snapshots, final: text, capabilities: TerminalCapabilities(width: 40))
        let readable = output.replacingOccurrences(of: "\r\u{1B}D", with: "\r\u{1B}D\n")
            .replacingOccurrences(of: "\r", with: "␍")
            .replacingOccurrences(of: "\u{1B}[?2026l", with: "\u{1B}[?2026l\n--- update\n")
        assertGolden(
            readable,
            named: "redraw-protocol", in: snapshotDirectory(for: #filePath))
    }

    @Test func fileDescriptorSinkWritesOnFlush() throws {
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        defer { close(descriptors[0]) }
        var sink = FileDescriptorSink(fd: descriptors[1])
        sink.write("héllo ")
        sink.write("world")
        sink.flush()
        close(descriptors[1])
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(descriptors[0], &buffer, buffer.count)
        #expect(String(decoding: buffer[..<max(count, 0)], as: UTF8.self) == "héllo world")
    }
}

struct UnfinishedMarkupTests {
    private func tail(_ text: String) -> [String] {
        let renderer = StreamRenderer(sink: StringSink(), capabilities: TerminalCapabilities(width: 80), mode: .always)
        renderer.update(text)
        return screenLines(renderer.sink.output, width: 80).filter { !$0.isEmpty }
    }

    @Test(arguments: [
        ("You said: *E", "You said:"),
        ("Read [link](https://lms", "Read"),
        ("Read [the docs", "Read"),
        ("Call `make", "Call"),
        ("Very **bold and *both", "Very"),
        ("Gone ~~soon", "Gone"),
        ("See <https://lmstudio", "See"),
        ("a<b and <https://lmstudio", "a<b and"),
        ("- item with *open", "• item with"),
        ("> quoted _start", "│ quoted")
    ])
    func unclosedInlineMarkupIsHiddenInTheLiveTail(text: String, shown: String) {
        #expect(tail(text) == [shown])
    }

    @Test(arguments: [
        ("Closed *emphasis* and `code`.", "Closed emphasis and code."),
        ("2 * 3 = 6 and snake_case_name", "2 * 3 = 6 and snake_case_name"),
        ("if a<b and c<d then", "if a<b and c<d then"),
        ("* a bullet", "• a bullet")
    ])
    func closedOrLiteralMarkupStaysVisible(text: String, shown: String) {
        #expect(tail(text) == [shown])
    }

    @Test func codeInTheTailIsNotCut() {
        // Fences are hidden on a terminal: the language shows as a label above the code.
        #expect(tail("```sh\necho `date") == ["sh", "echo `date"])
    }

    @Test func theFinishedReplyShowsWhatWasHidden() {
        let renderer = StreamRenderer(
            sink: StringSink(), capabilities: TerminalCapabilities(noColor: true, width: 80), mode: .always)
        renderer.update("You said: *E")
        renderer.finish("You said: *E")
        #expect(screenLines(renderer.sink.output, width: 80) == ["You said: *E"])
    }
}

/// The columns prose takes: all of a terminal's, all but the last of an Emacs window's.
struct ProseWidthTests {
    @Test func aParagraphAsWideAsTheTerminalIsOneLineExceptInAnEmacsWindow() {
        let paragraph = String(repeating: "x", count: 98) + " z"
        let terminal = MarkdownRenderer(capabilities: TerminalCapabilities(noColor: true, width: 100), mode: .always)
        #expect(terminal.lines(paragraph) == [paragraph])
        let comint = MarkdownRenderer(
            capabilities: TerminalCapabilities(emacs: .comint, noColor: true, width: 100), mode: .always)
        #expect(comint.lines(paragraph) == [String(repeating: "x", count: 98), "z"])
    }
}
