import Foundation
import TestSupport
import Testing

/// The REPL on line-mode front ends, on a real pseudo-terminal with echo off and lines ended by LF, as Emacs's
/// M-x shell (comint) and scripts drive it.
@Suite(.spawnsProcesses) struct ReplLineModeTests {
    /// Sends `line` ended by LF, as comint does, and waits for the next prompt (`… ` while a message continues);
    /// returns what appeared meanwhile.
    @discardableResult
    private func send(_ line: String, to terminal: Pseudoterminal, prompt: String = "› ") async throws -> String {
        let start = terminal.mark
        terminal.send(line + "\n")
        return try await terminal.waitFor(prompt, after: start)
    }

    /// The raw output from the first `marker` to the stats line after it (the prompt after it repeats the typed title).
    private func replyPart(_ raw: String, from marker: String) throws -> String {
        let start = try #require(raw.range(of: marker))
        let end = try #require(raw.range(of: "tok/s", range: start.upperBound..<raw.endIndex))
        return String(raw[start.lowerBound..<end.upperBound])
    }

    @Test func dumbTerminalSendsLinesEndedByLineFeedWithoutAnyEscape() async throws {
        let repl = try ReplHarness(environment: ["TERM": "dumb"])
        let terminal = try await repl.start(echo: false)
        let reply = try await send("echo:Hello **there** world", to: terminal)
        #expect(reply.contains("Hello there world\n"), "the line was sent and its reply rendered: \(reply)")
        await #expect(try send("/ps", to: terminal).contains("INSTANCE"), "slash commands run")
        try await send("\"\"\"", to: terminal, prompt: "… ")
        try await send("echo:first line", to: terminal, prompt: "… ")
        try await send("second line", to: terminal, prompt: "… ")
        await #expect(
            try send("\"\"\"", to: terminal).contains("first line second line"), "a \"\"\" block is one message")
        try await send("echo:trailing \\", to: terminal, prompt: "… ")
        await #expect(try send("backslash", to: terminal).contains("trailing backslash"), "a trailing \\ continues")
        let start = terminal.mark
        terminal.send("echo:ended by CR LF\r\n")
        #expect(try await terminal.waitFor("› ", after: start).contains("ended by CR LF"))
        terminal.send("\u{4}")
        #expect(try await terminal.waitForExit() == 0, "Ctrl-D quits")
        #expect(
            !terminal.rawOutput.contains("\u{1B}"), "no escape sequence at all: \(terminal.rawOutput.debugDescription)")
        #expect(!terminal.text.contains("^J"))
    }

    /// comint sends each line ended by LF as soon as Enter is pressed: a line typed ahead of a message that is refused
    /// arrives on its own, never joined to it, and the refused message is said to be kept.
    @Test func aLineTypedAheadOfARefusedMessageArrivesOnItsOwn() async throws {
        let repl = try ReplHarness(environment: ["TERM": "dumb", "INSIDE_EMACS": "30.1,comint"])
        let terminal = try await repl.start(echo: false)
        let start = terminal.mark
        terminal.send("[[sim:status=500]] echo:first\necho:second thought\n")
        let kept = try await terminal.waitPast("Nothing sent; the message is kept", after: start)
        try await terminal.waitFor("tok/s", after: kept)
        let inputs = repl.fixture.requests(to: "/api/v1/chat").map { $0.field("input") }
        #expect(inputs == ["[[sim:status=500]] echo:first", "echo:second thought"], "\(inputs)")
    }

    /// In line mode a slash command typed while a refused message waits as the draft runs and keeps it, as Enter on an
    /// empty line would still send it.
    @Test func aCommandTypedWhileADraftWaitsKeepsIt() async throws {
        let repl = try ReplHarness(environment: ["TERM": "dumb", "INSIDE_EMACS": "30.1,comint"])
        let terminal = try await repl.start(echo: false)
        try await send("echo:first", to: terminal)
        let start = terminal.mark
        terminal.send("[[sim:status=500]] echo:kept\n")
        let kept = try await terminal.waitPast("Nothing sent; the message is kept", after: start)
        try await terminal.waitFor("› ", after: kept)
        await #expect(try send("/ps", to: terminal).contains("INSTANCE"), "the command runs")
        terminal.send("\u{4}")
        #expect(try await terminal.waitForExit() == 0)
        #expect(try repl.firstDraft() == "[[sim:status=500]] echo:kept")
    }

    @Test func comintGetsSGRColoursAndNothingElse() async throws {
        let repl = try ReplHarness(environment: ["TERM": "dumb", "INSIDE_EMACS": "30.1,comint"])
        let terminal = try await repl.start(echo: false)
        try await send("echo:Hello **bold** world and `code`.", to: terminal)
        try await send("tell me more", to: terminal)
        let raw = terminal.rawOutput
        let sequences = raw.components(separatedBy: "\u{1B}").dropFirst()
        #expect(!sequences.isEmpty, "the reply is coloured")
        for sequence in sequences {
            #expect(sequence.firstMatch(of: /^\[[0-9;]*m/) != nil, "only SGR: \(sequence.prefix(12).debugDescription)")
        }
        let first = try replyPart(raw, from: "Hello ")
        #expect(first.contains("\u{1B}[1mbold\u{1B}[0m"), "bold carries SGR 1: \(first.debugDescription)")
        #expect(!first.contains("**") && !first.contains("`"), "no raw Markdown: \(first.debugDescription)")
        let second = try replyPart(raw, from: "You said")
        #expect(
            second.contains("\u{1B}[33m•\u{1B}[0m it has 3 words"),
            "list bullets are coloured: \(second.debugDescription)")
        #expect(raw.firstMatch(of: /\r[^\n]/) == nil, "nothing is redrawn")
    }

    @Test func ctrlCCancelsTheReplyAndTheTypedLine() async throws {
        let repl = try ReplHarness(environment: ["TERM": "dumb"])
        let terminal = try await repl.start(echo: false)
        let start = terminal.mark
        terminal.send(
            "[[sim:stall=30,delta=300]] echo:" + Array(repeating: "alpha", count: 200).joined(separator: " ")
                + " omega\n")
        try await terminal.waitFor("alpha alpha", after: start)
        terminal.send("\u{3}")
        let after = try await terminal.waitFor("› ", after: start)
        #expect(after.contains("incomplete: cancelled"), "\(after)")
        #expect(!after.contains("omega"))
        await #expect(try send("echo:still here", to: terminal).contains("still here"))
        let typed = terminal.mark
        terminal.send("half a line")
        // Read by llmster first: the terminal's own Ctrl-C flush would otherwise drop it before llmster could.
        try await terminal.waitUntilInputIsRead()
        terminal.send("\u{3}")
        try await terminal.waitFor("› ", after: typed)
        await #expect(
            try send("echo:and on", to: terminal).contains("and on"), "Ctrl-C at the prompt keeps the REPL running")
        #expect(
            repl.fixture.requests(to: "/api/v1/chat").last?.field("input") == "echo:and on",
            "the half line Ctrl-C dropped is not sent with the next one")
    }

    @Test func reasoningAndStagesAreAppendedLines() async throws {
        let repl = try ReplHarness(environment: ["TERM": "dumb", "INSIDE_EMACS": "28.2,comint"])
        let terminal = try await repl.start(["-m", "acme/thinker-8b"], echo: false)
        let reply = try await send("[[sim:reasoning]] echo:thought through", to: terminal)
        #expect(reply.contains("▸ Reasoning…\n"), "\(reply)")
        #expect(reply.contains("▸ Thought for"), "the summary line follows: \(reply)")
        #expect(reply.contains("thought through\n"))
        #expect(terminal.rawOutput.firstMatch(of: /\r[^\n]/) == nil, "no line is rewritten")
    }
}
