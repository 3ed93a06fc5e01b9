import Foundation
import Simulator
import TerminalMarkdown
import TestSupport
import Testing

/// The REPL asks the terminal for its background (OSC 11) when nothing says it, and colours prose and code to read
/// on it; a terminal that does not answer costs no more than a short wait.
@Suite(.spawnsProcesses) struct ReplBackgroundTests {
    /// The sandbox sets no COLORFGBG, as xterm, VTE and kitty set none.
    private let reply = "echo:use `make` as [the docs](https://example.org) say"

    @Test func aLightBackgroundGetsColoursThatReadOnWhite() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start(background: "rgb:ffff/ffff/f0f0")
        #expect(terminal.rawOutput.contains("\u{1B}]11;?"), "the terminal was asked")
        let start = terminal.rawOutput.count
        try await terminal.enter(reply)
        let shown = String(terminal.rawOutput.dropFirst(start))
        // The sandbox's terminal shows 256 colours (TERM=xterm-256color): the light palette's red is entry 124.
        #expect(
            shown.contains("\u{1B}[38;5;124mmake\u{1B}[0m"),
            "inline code in red, not washed-out cyan: \(shown.debugDescription)")
    }

    @Test func aDarkBackgroundGetsABlueThatReadsOnBlack() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start(background: "rgb:1e1e/1e1e/2828")
        let start = terminal.rawOutput.count
        try await terminal.enter(reply)
        let shown = String(terminal.rawOutput.dropFirst(start))
        #expect(shown.contains("\u{1B}[38;5;80mmake\u{1B}[0m"), "\(shown.debugDescription)")
        #expect(
            shown.contains("\u{1B}[4;38;5;69mthe docs"),
            "links in a blue that reads on black: \(shown.debugDescription)")
    }

    @Test(arguments: [true, false])
    func aTerminalThatDoesNotAnswerStillGetsThePromptAndKeepsWhatWasTyped(answersDeviceAttributes: Bool) async throws {
        let repl = try ReplHarness()
        let terminal = try Pseudoterminal(
            try BuiltProduct.path("llmster"), [], environment: repl.environment,
            answersDeviceAttributes: answersDeviceAttributes)
        terminal.send("echo:typed at once\r")
        try await terminal.waitFor("tok/s")
        #expect(repl.fixture.requests(to: "/api/v1/chat").last?.field("input") == "echo:typed at once")
        #expect(
            terminal.rawOutput.contains("\u{1B}[38;5;80m") || !terminal.rawOutput.contains("\u{1B}[38;5;124m"),
            "the dark default")
    }

    @Test func anAnswerThatComesTooLateDoesNotLandInTheLine() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let start = terminal.mark
        terminal.send("echo:before \u{1B}]11;rgb:ffff/ffff/ffff\u{1B}\\\u{1B}[?62;22c")
        terminal.send("and after\r")
        try await terminal.waitFor("tok/s", after: start)
        #expect(repl.fixture.requests(to: "/api/v1/chat").last?.field("input") == "echo:before and after")
    }

    @Test func colorFgBgOrTheThemeSettingMeansNoQuestion() async throws {
        let repl = try ReplHarness(environment: ["COLORFGBG": "0;15"])
        let terminal = try await repl.start()
        let start = terminal.rawOutput.count
        try await terminal.enter(reply)
        #expect(!terminal.rawOutput.contains("\u{1B}]11;?"), "COLORFGBG says it already")
        #expect(String(terminal.rawOutput.dropFirst(start)).contains("\u{1B}[38;5;124mmake"), "and it says light")
        let configured = try ReplHarness()
        try configured.sandbox.write("theme = dark\n", to: "config/llmster/config")
        let other = try await configured.start()
        #expect(!other.rawOutput.contains("\u{1B}]11;?"), "the theme setting says it already")
    }
}

/// The REPL asks the terminal how it draws emoji sequences (DECRQM 2027, else probe clusters measured by cursor
/// position reports) and lays replies out by what it does; one-shot commands on that terminal use the answer kept.
@Suite(.spawnsProcesses) struct ReplTerminalWidthTests {
    /// A table whose one cell is a ZWJ family: two columns where the terminal clusters graphemes, eight where it
    /// draws each code point. Its borders line up only when llmster counts as the terminal draws.
    private let table = "| family |\n|---|\n| \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466} |"

    /// Sends the table as one message (a paste) and waits for the reply.
    private func sendTable(_ terminal: Pseudoterminal) async throws {
        let start = terminal.mark
        terminal.send("echo:\u{1B}[200~" + table + "\u{1B}[201~\r")
        let shown = try await terminal.waitFor("tok/s", after: start)
        let stats = try #require(shown.range(of: "tok/s"))
        try await terminal.waitFor("› ", after: start + shown.distance(from: shown.startIndex, to: stats.upperBound))
    }

    /// The widths, as a terminal drawing by `model` shows them, of the rows of the last table on the screen.
    private func tableRowWidths(_ output: String, model: WidthModel) -> [Int] {
        var screen = TerminalScreen(width: 40, height: 400, widthOf: { DisplayWidth.of($0, model: model) })
        screen.apply(output)
        let rows = screen.lines.reversed().drop { !$0.hasPrefix("└") }.prefix { !$0.hasPrefix("┌") }
        return rows.map { DisplayWidth.of($0.trimmingCharacters(in: .whitespaces), model: model) }
    }

    /// kitty 0.26 names itself a clustering terminal but draws a family 8 columns wide: measured, the table's
    /// borders line up as it draws them, and `ask` on the same terminal later uses the measure without asking.
    @Test func aTerminalThatDrawsEachCodePointIsMeasuredAndRemembered() async throws {
        let repl = try ReplHarness()
        var environment = repl.environment
        environment["TERM"] = "xterm-kitty"
        environment["KITTY_WINDOW_ID"] = "1"
        let terminal = try Pseudoterminal(
            try BuiltProduct.path("llmster"), [], environment: environment, width: 40,
            cursorColumns: [9, 3, 2])
        try await terminal.waitFor("› ")
        #expect(
            terminal.rawOutput.contains("\u{1B}[?2027$p") && terminal.rawOutput.contains("\u{1B}[6n"),
            "the terminal was asked")
        try await sendTable(terminal)
        let widths = tableRowWidths(terminal.rawOutput, model: .codepoint)
        #expect(widths.count == 4 && Set(widths).count == 1, "every row as wide as the borders: \(widths)")
        let kept = try String(contentsOfFile: repl.sandbox.root + "/state/llmster/terminal-widths", encoding: .utf8)
        #expect(kept.contains("xterm-kitty") && kept.hasSuffix("\tcodepoint\n"), "\(kept)")
        terminal.send("\u{4}")
        _ = try await terminal.waitForExit()
        let ask = try Pseudoterminal(
            try BuiltProduct.path("llmster"), ["ask", "echo:" + table], environment: environment, width: 40)
        _ = try await ask.waitForExit()
        let asked = tableRowWidths(ask.rawOutput, model: .codepoint)
        #expect(asked.count == 4 && Set(asked).count == 1, "ask lays the table out as measured: \(asked)")
    }

    /// A terminal that reports mode 2027 set clusters graphemes, whatever its name says.
    @Test func aTerminalReportingGraphemeClusteringIsBelieved() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start(width: 40, graphemeMode: 1)
        try await sendTable(terminal)
        let widths = tableRowWidths(terminal.rawOutput, model: .grapheme)
        #expect(widths.count == 4 && Set(widths).count == 1, "every row as wide as the borders: \(widths)")
    }
}
