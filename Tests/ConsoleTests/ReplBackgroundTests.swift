import Foundation
import Simulator
import Testing
import TestSupport

/// The REPL asks the terminal for its background (OSC 11) when nothing says it, and colours prose and code to read
/// on it; a terminal that does not answer costs no more than a short wait.
@Suite struct ReplBackgroundTests {
    /// The sandbox sets no COLORFGBG, as xterm, VTE and kitty set none.
    private let reply = "echo:use `make` as [the docs](https://example.org) say"

    @Test func aLightBackgroundGetsColoursThatReadOnWhite() throws {
        let repl = try ReplHarness()
        let terminal = try repl.start(background: "rgb:ffff/ffff/f0f0")
        #expect(terminal.rawOutput.contains("\u{1B}]11;?"), "the terminal was asked")
        let start = terminal.rawOutput.count
        try terminal.enter(reply)
        let shown = String(terminal.rawOutput.dropFirst(start))
        #expect(shown.contains("\u{1B}[31mmake\u{1B}[0m"), "inline code in red, not washed-out cyan: \(shown.debugDescription)")
    }

    @Test func aDarkBackgroundGetsABlueThatReadsOnBlack() throws {
        let repl = try ReplHarness()
        let terminal = try repl.start(background: "rgb:1e1e/1e1e/2828")
        let start = terminal.rawOutput.count
        try terminal.enter(reply)
        let shown = String(terminal.rawOutput.dropFirst(start))
        #expect(shown.contains("\u{1B}[36mmake\u{1B}[0m"), "\(shown.debugDescription)")
        #expect(shown.contains("\u{1B}[4;94mthe docs"), "links in bright blue: \(shown.debugDescription)")
    }

    @Test(arguments: [true, false])
    func aTerminalThatDoesNotAnswerStillGetsThePromptAndKeepsWhatWasTyped(answersDeviceAttributes: Bool) throws {
        let repl = try ReplHarness()
        let terminal = try Pseudoterminal(try BuiltProduct.path("llmster"), [], environment: repl.environment,
                                          answersDeviceAttributes: answersDeviceAttributes)
        terminal.send("echo:typed at once\r")
        try terminal.waitFor("tok/s")
        #expect(repl.fixture.requests(to: "/api/v1/chat").last?.field("input") == "echo:typed at once")
        #expect(terminal.rawOutput.contains("\u{1B}[36m") || !terminal.rawOutput.contains("\u{1B}[31m"), "the dark default")
    }

    @Test func anAnswerThatComesTooLateDoesNotLandInTheLine() throws {
        let repl = try ReplHarness()
        let terminal = try repl.start()
        let start = terminal.mark
        terminal.send("echo:before \u{1B}]11;rgb:ffff/ffff/ffff\u{1B}\\\u{1B}[?62;22c")
        terminal.send("and after\r")
        try terminal.waitFor("tok/s", after: start)
        #expect(repl.fixture.requests(to: "/api/v1/chat").last?.field("input") == "echo:before and after")
    }

    @Test func colorFgBgOrTheThemeSettingMeansNoQuestion() throws {
        let repl = try ReplHarness(environment: ["COLORFGBG": "0;15"])
        let terminal = try repl.start()
        let start = terminal.rawOutput.count
        try terminal.enter(reply)
        #expect(!terminal.rawOutput.contains("\u{1B}]11;?"), "COLORFGBG says it already")
        #expect(String(terminal.rawOutput.dropFirst(start)).contains("\u{1B}[31mmake"), "and it says light")
        let configured = try ReplHarness()
        try configured.sandbox.write("theme = dark\n", to: "config/llmster/config")
        let other = try configured.start()
        #expect(!other.rawOutput.contains("\u{1B}]11;?"), "the theme setting says it already")
    }
}
