import Foundation
import Simulator
import TestSupport
import Testing

/// What the prompt does with pasted and interrupted input.
@Suite(.spawnsProcesses) struct ReplPasteTests {
    @Test(arguments: [60, 100])
    func aPasteTallerThanTheScreenIsSummarisedAndSentWhole(width: Int) async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start(width: width, height: 20)
        let lines = (1...63).map { "line \($0) of the pasted text" }
        let start = terminal.mark
        terminal.send("echo:\u{1B}[200~" + lines.joined(separator: "\n") + "\u{1B}[201~")
        let echo = try await terminal.waitFor("[pasted 63 lines]", after: start)
        #expect(!echo.contains("line 30 of"), "the tall paste is not drawn line by line: \(echo)")
        let entered = terminal.mark
        terminal.send("\r")
        let reply = try await terminal.waitFor("› ", after: entered)
        #expect(reply.contains("line 63 of the"), "the reply echoes the last pasted line: \(reply)")
        let sent = try #require(repl.fixture.requests(to: "/api/v1/chat").last?.field("input"))
        #expect(sent == "echo:" + lines.joined(separator: "\n"), "the message holds every pasted line")
        var screen = TerminalScreen(width: width, height: 20)
        screen.apply(terminal.rawOutput)
        #expect(
            screen.lines.contains { $0.hasSuffix("› echo:[pasted 63 lines]") },
            "the summary stays in the scrollback: \(screen.lines)")
    }

    /// One line taller than the screen is summarised as one line, in the singular.
    @Test func aSingleTallLineIsSummarisedAsOneLine() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start(width: 40, height: 10)
        let line = String(repeating: "one very long pasted line ", count: 20)
        let start = terminal.mark
        terminal.send("echo:\u{1B}[200~" + line + "\u{1B}[201~")
        let echo = try await terminal.waitFor("[pasted 1 line]", after: start)
        #expect(!echo.contains("[pasted 1 lines]"), "\(echo)")
        let entered = terminal.mark
        terminal.send("\r")
        try await terminal.waitFor("› ", after: entered)
        let sent = try #require(repl.fixture.requests(to: "/api/v1/chat").last?.field("input"))
        #expect(sent == "echo:" + line, "the message holds the whole line")
    }

    @Test func aTallDraftComesBackSummarisedAndIsSentWhole() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start(height: 20)
        try await terminal.enter("echo:first")
        let lines = (1...40).map { "draft line \($0)" }
        terminal.send("echo:\u{1B}[200~" + lines.joined(separator: "\n") + "\u{1B}[201~")
        try await terminal.waitFor("[pasted 40 lines]")
        try await terminal.interruptLine()
        try await terminal.enter("/new")
        let start = terminal.mark
        terminal.send("/open echo:first\r")
        try await terminal.waitFor("› [draft of 40 lines]", after: start)
        #expect(!terminal.text.dropFirst(start).contains("draft line 20"), "the tall draft is not drawn line by line")
        terminal.send("\r")
        try await terminal.waitFor("draft line 40", after: start)
        #expect(
            repl.fixture.requests(to: "/api/v1/chat").last?.field("input") == "echo:" + lines.joined(separator: "\n"))
    }

    /// A paste of several lines is text as it stands even when its first line starts with a slash (a log path, a
    /// command quoted in a question): Enter sends it whole rather than running its first word as a command.
    @Test func aPasteOfSeveralLinesStartingWithASlashIsSent() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let start = terminal.mark
        terminal.paste("/var/log/syslog says:\rkernel: oops at 0x0")
        try await terminal.waitFor("oops at 0x0", after: start)
        terminal.send("\r")
        let shown = try await terminal.outputBeforePrompt(after: start + 40)
        #expect(!shown.contains("unknown command"), "\(shown)")
        #expect(
            repl.fixture.requests(to: "/api/v1/chat").map { $0.field("input") }
                == ["/var/log/syslog says:\nkernel: oops at 0x0"])
    }

    /// One pasted line is one line with or without the line end a triple-click copies with it: a command runs.
    @Test func aPastedCommandWithItsLineEndRuns() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let start = terminal.mark
        terminal.paste("/ps\r")
        try await terminal.waitFor("/ps", after: start)
        terminal.send("\r")
        let shown = try await terminal.outputBeforePrompt(after: start + 4)
        #expect(shown.contains("acme/tiny-1b  "), "the command ran: \(shown)")
        #expect(repl.fixture.requests(to: "/api/v1/chat").isEmpty, "nothing was sent to the model")
    }

    @Test func aShortPasteIsShownAsTyped() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start(height: 20)
        let start = terminal.mark
        terminal.send("\u{1B}[200~echo:first pasted line\nsecond pasted line\u{1B}[201~")
        try await terminal.waitFor("second pasted line", after: start)
        terminal.send("\r")
        try await terminal.waitFor("› ", after: start + 40)
        #expect(
            repl.fixture.requests(to: "/api/v1/chat").last?.field("input")
                == "echo:first pasted line\nsecond pasted line")
    }

    /// A `"""` or a trailing `\\` in a paste is text: a pasted Python file that starts with its docstring, or text
    /// ending in a backslash, is sent whole, at once, as pasted.
    /// The same file pasted with its lines ended by CR, as xterm, kitty and tmux send a paste, arrives with LF.
    @Test(arguments: [
        ("\"\"\"\necho:A module.\n\"\"\"\nimport os\nprint(os.name)", "\n"),
        ("echo:first line \\\nlast line ends in \\", "\n"),
        ("\"\"\"\recho:A module.\r\"\"\"\rimport os\rprint(os.name)", "\r")
    ])
    func aPasteArrivesLiterally(file: String, lineEnd: Character) async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let start = terminal.mark
        let last = String(file.split(separator: lineEnd).last!)
        terminal.send("\u{1B}[200~" + file + "\u{1B}[201~")
        try await terminal.waitFor(last, after: start)
        terminal.send("\r")
        let shown = try await terminal.waitFor("› ", after: start + file.count)
        #expect(shown.contains(last), "the reply echoes the end of the paste: \(shown)")
        #expect(
            repl.fixture.requests(to: "/api/v1/chat").last?.field("input")
                == file.replacingOccurrences(of: "\r", with: "\n"),
            "the message is the paste as it stands")
    }

    @Test func aLineTypedDuringAReplyIsSentAfterIt() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let start = try await terminal.sendLine("[[sim:stall=10]] echo:alpha beta gamma delta epsilon")
        try await terminal.waitFor("alpha", after: start)
        terminal.send("echo:**typed** ahead\r")
        try await terminal.waitFor("typed ahead", after: start)
        #expect(repl.fixture.requests(to: "/api/v1/chat").last?.field("input") == "echo:**typed** ahead")
    }

    @Test func ctrlCAtThePromptLeavesTheTypedLineOnTheScreen() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        terminal.send("a thought I abandon")
        try await terminal.waitFor("a thought I abandon")
        terminal.send("\u{3}")
        try await terminal.waitFor("^C")
        var screen = TerminalScreen(width: 100, height: 40)
        screen.apply(terminal.rawOutput)
        #expect(screen.lines.contains { $0.hasSuffix("› a thought I abandon^C") }, "\(screen.lines)")
    }
}
