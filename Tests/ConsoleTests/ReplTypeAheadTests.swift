import Foundation
import Simulator
import TestSupport
import Testing

/// Input is never lost or misdirected: lines typed ahead, a draft given back to the line, questions, Ctrl-D and
/// Ctrl-L, all driven by real keystrokes on a pseudo-terminal.
@Suite(.spawnsProcesses) struct ReplTypeAheadTests {
    /// Enter sends CR; a terminal in its normal mode (during a reply) turns it into LF, and Ctrl-J is LF too.
    @Test(arguments: ["\r", "\n"])
    func everyLineTypedDuringAReplyRunsInTurnAtItsOwnPrompt(lineEnd: String) async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let start = terminal.mark
        let echoed = try await terminal.sendLine("[[sim:stall=10]] echo:alpha beta gamma delta epsilon")
        try await terminal.waitFor("alpha", after: echoed)
        terminal.send(["/modle", "/stats", "echo:third line"].map { $0 + lineEnd }.joined())
        let past = try await terminal.waitPast("third line\n", after: echoed)
        try await terminal.waitFor("› ", after: past)
        let shown = terminal.text.dropFirst(start)
        #expect(shown.contains("unknown command /modle"), "the first line ran: \(shown)")
        #expect(shown.contains("output ") && shown.contains(" tokens"), "the second line ran (/stats): \(shown)")
        let inputs = repl.fixture.requests(to: "/api/v1/chat").map { $0.field("input") }
        #expect(inputs.last == "echo:third line", "the third line was sent on its own: \(inputs)")
        var screen = TerminalScreen(width: 100, height: 40)
        screen.apply(terminal.rawOutput)
        let lines = screen.lines
        for typed in ["/modle", "/stats", "echo:third line"] {
            let row = try #require(
                lines.firstIndex { $0.hasSuffix("› " + typed) }, "\(typed) shows at a prompt: \(lines)")
            #expect(lines[row + 1] != "", "no blank line follows the typed-ahead \(typed): \(lines[row...])")
        }
    }

    @Test func aPasteDuringAReplyArrivesWholeWithItsLineBreaks() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let echoed = try await terminal.sendLine("[[sim:stall=10]] echo:alpha beta gamma delta epsilon")
        try await terminal.waitFor("alpha", after: echoed)
        terminal.send("\u{1B}[200~echo:pasted one\rpasted two\u{1B}[201~\r")
        // The answer is Markdown: its soft line break shows as a space, unlike the input's echo.
        try await terminal.waitFor("pasted one pasted two", after: echoed)
        #expect(repl.fixture.requests(to: "/api/v1/chat").last?.field("input") == "echo:pasted one\npasted two")
    }

    /// A terminal marks a paste only while the program has bracketed paste on: llmster keeps it on while a reply
    /// streams, so lines pasted then reach the next prompt as one paste and are one message once Enter sends it (a
    /// slash command line among them runs nothing).
    @Test func linesPastedDuringAReplyAreOneMessage() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let echoed = try await terminal.sendLine("[[sim:stall=10]] echo:alpha beta gamma delta epsilon")
        try await terminal.waitFor("alpha", after: echoed)
        terminal.paste("echo:pasted A\rpasted B\r/ps\rpasted C")
        let ended = try await terminal.waitPast("epsilon", after: echoed)
        try await terminal.waitFor("pasted C", after: ended)
        terminal.send("\r")
        try await terminal.waitFor("pasted A pasted B /ps pasted C", after: ended)
        let inputs = repl.fixture.requests(to: "/api/v1/chat").map { $0.field("input") }
        #expect(inputs.last == "echo:pasted A\npasted B\n/ps\npasted C", "\(inputs)")
        #expect(inputs.count == 2, "\(inputs)")
    }

    /// A paste longer than readline's input buffer (about 500 bytes), or than what the end of a reply drains at once
    /// (4 KiB), made while a reply streams arrives whole in the next prompt's line and waits there for Enter.
    /// Terminals end a pasted line with CR (xterm, kitty, tmux) or LF (some others); both arrive as newlines.
    @Test(arguments: [(12, "\r"), (60, "\r"), (12, "\n"), (60, "\n")])
    func aLongPasteDuringAReplyArrivesWholeAndWaits(lines: Int, lineEnd: String) async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let echoed = try await terminal.sendLine("[[sim:stall=10]] echo:alpha beta gamma delta epsilon")
        try await terminal.waitFor("alpha", after: echoed)
        let pasted = (1...lines).map { String(format: "line %03d ", $0) + String(repeating: "x", count: 90) }
        terminal.paste("echo:" + pasted.joined(separator: lineEnd))
        let ended = try await terminal.waitPast("epsilon", after: echoed)
        try await terminal.waitFor(
            lines > 30 ? "[pasted \(lines) lines]" : "line \(String(format: "%03d", lines))", after: ended)
        #expect(repl.fixture.requests(to: "/api/v1/chat").count == 1, "nothing is sent before Enter")
        let sent = terminal.mark
        terminal.send("\r")
        try await terminal.waitFor(" tok/s", after: sent)
        #expect(
            repl.fixture.requests(to: "/api/v1/chat").last?.field("input") == "echo:" + pasted.joined(separator: "\n"))
    }

    /// Ctrl-C stops the reply, not what was typed meanwhile: the terminal keeps the typed line (NOFLSH), and it is
    /// sent at the prompt after the cancelled reply.
    @Test func ctrlCDuringAReplyKeepsWhatWasTyped() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let echoed = try await terminal.sendLine("[[sim:stall=30]] echo:alpha beta gamma delta epsilon")
        try await terminal.waitFor("alpha", after: echoed)
        terminal.send("echo:typed while it streamed\r")
        try await terminal.waitUntilInputIsQueued("echo:typed while it streamed\n".utf8.count)
        terminal.send("\u{3}")
        // The line at the prompt, then its answer.
        let line = try await terminal.waitPast("while it streamed", after: echoed + 40)
        try await terminal.waitFor("while it streamed", after: line)
        let inputs = repl.fixture.requests(to: "/api/v1/chat").map { $0.field("input") }
        #expect(inputs.last == "echo:typed while it streamed", "\(inputs)")
    }

    /// A question inside a command turns the terminal's paste marks off when it is read, as every read does; they are
    /// on again for the rest of the command, so a paste made while it goes on (a model loading) arrives whole.
    @Test func pasteMarksAreOnAgainAfterAQuestionInACommand() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:first")
        try await terminal.ask("/delete")
        let answered = terminal.rawOutput.utf8.count
        try await terminal.enter("n")
        let raw = String(terminal.rawOutput.utf8.dropFirst(answered)) ?? ""
        let modes = raw.ranges(of: "\u{1B}[?2004").map { raw[$0.upperBound...].prefix(1) }
        #expect(modes.starts(with: ["l", "h", "l"]), "the read's end, the command's rest, the command's end: \(modes)")
    }

    /// The pager reads the terminal itself, so paste marks are off while it runs, and on again for the command's rest.
    @Test func pasteMarksAreOffWhileThePagerRuns() async throws {
        let repl = try ReplHarness(environment: ["PAGER": "cat"])
        let terminal = try await repl.start()
        let asked = terminal.rawOutput.utf8.count
        let shown = try await terminal.enter("/help")
        #expect(shown.contains("/model"), "the help was paged: \(shown)")
        let raw = String(terminal.rawOutput.utf8.dropFirst(asked)) ?? ""
        let modes = raw.ranges(of: "\u{1B}[?2004").map { raw[$0.upperBound...].prefix(1) }
        #expect(
            modes.starts(with: ["l", "h", "l", "h", "l"]),
            "the read's end, the command, the pager, the command's rest, the command's end: \(modes)")
    }

    @Test func linesTypedAtOnceAtThePromptAllArrive() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let start = terminal.mark
        terminal.send("\"\"\"\recho:first line\rsecond line\r\"\"\"\r/ps\r")
        try await terminal.waitFor("acme/tiny-1b  ", after: start + 40)
        #expect(repl.fixture.requests(to: "/api/v1/chat").map { $0.field("input") } == ["echo:first line\nsecond line"])
    }

    @Test func aCommandTypedAfterARestoredDraftRunsAndTheDraftStays() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:first chat")
        terminal.send("draft again more")
        try await terminal.waitFor("draft again more")
        try await terminal.interruptLine()
        try await terminal.enter("/new")
        let start = terminal.mark
        terminal.send("/open echo:first chat\r")
        let opened = try await terminal.waitFor("› draft again more", after: start + 20)
        #expect(opened.contains("draft is back in the line"), "the restored draft is announced: \(opened)")
        terminal.send("/delete\r")
        let question = try await terminal.waitFor("[y/N] ", after: start + opened.count)
        #expect(question.contains("Delete echo:first chat and all its messages?"), "\(question)")
        #expect(try await terminal.enter("y").contains("Deleted echo:first chat."))
        let inputs = repl.fixture.requests(to: "/api/v1/chat").map { $0.field("input") }
        #expect(inputs == ["echo:first chat"], "neither the draft nor the answer went to the model: \(inputs)")
    }

    /// A line typed ahead of a message that comes back (refused) waits for its own prompt after it: it used to run on
    /// into the message given back to the line, and the two went as one.
    @Test func aLineTypedAheadOfARefusedMessageComesAtItsOwnPromptAfterIt() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let start = terminal.mark
        terminal.send("[[sim:status=500]] echo:first\recho:second thought\r")
        let failure = try await terminal.waitPast("Simulated failure", after: start)
        let back = try await terminal.waitPast("› [[sim:status=500]] echo:first", after: failure)
        // Ctrl-U empties the line, which held the message alone.
        terminal.send("\u{15}echo:first again\r")
        let second = try await terminal.waitPast("› echo:second thought", after: back)
        try await terminal.waitFor(" tok/s", after: second)
        let inputs = repl.fixture.requests(to: "/api/v1/chat").map { $0.field("input") }
        #expect(inputs.suffix(2) == ["echo:first again", "echo:second thought"], "\(inputs)")
        var screen = TerminalScreen(width: 100, height: 40)
        screen.apply(terminal.rawOutput)
        #expect(!screen.lines.contains { $0.contains("firstecho:") }, "\(screen.lines)")
    }

    @Test func ctrlDStillQuitsWhenAFailedFirstMessageIsBackInTheLine() async throws {
        let repl = try ReplHarness(environment: ["LLMSTER_SERVER": "http://127.0.0.1:9"])
        let terminal = try await repl.start()
        let start = terminal.mark
        terminal.send("hello\r")
        try await terminal.waitFor("› hello", after: start + 10)
        terminal.send("\u{4}")
        #expect(try await terminal.waitForExit() == 0, "Ctrl-D on the untouched message quits: \(terminal.text)")
    }

    /// Ctrl-D typed while a reply streams is kept: once the reply has ended, it quits at the prompt (the terminal's
    /// normal mode used to turn it into an end of file no read was waiting for, and it was lost).
    @Test func ctrlDTypedDuringAReplyQuitsOnceTheReplyEnds() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let echoed = try await terminal.sendLine("[[sim:stall=10]] echo:alpha beta gamma delta epsilon")
        try await terminal.waitFor("alpha", after: echoed)
        terminal.send("\u{4}")
        #expect(try await terminal.waitForExit() == 0, "Ctrl-D typed during the reply quits after it: \(terminal.text)")
        #expect(terminal.text.contains("epsilon"), "the reply ended whole first")
    }

    @Test func ctrlDOnAnEditedLineStillDeletesACharacter() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        terminal.send("echo:abcX\u{2}\u{4}\r")
        try await terminal.waitFor("abc\n")
        #expect(repl.fixture.requests(to: "/api/v1/chat").last?.field("input") == "echo:abc")
    }

    @Test func aSlashCommandAtAQuestionIsNotTakenAsTheAnswer() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:first")
        let start = terminal.mark
        terminal.send("/system Be brief.\r")
        try await terminal.waitFor("[y/N] ", after: start)
        let answered = try await terminal.enter("/set temperature 0.5")
        #expect(answered.contains("Taken as no"), "\(answered)")
        #expect(answered.contains("temperature = 0.5"), "the command ran: \(answered)")
        try await terminal.ask("/system Be terse.")
        #expect(
            try await terminal.enter("Yes").contains("the next message starts a fresh server context"),
            "yes in any case is yes")
    }

    /// Ctrl-D at a question a command asks gives its default, as documented, and the REPL goes on: the end-of-file key
    /// that is kept as a key while a command runs is an end of file again for the question's read.
    @Test func ctrlDAtAQuestionGivesTheDefault() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:first")
        try await terminal.ask("/delete")
        let answered = terminal.mark
        terminal.send("\u{4}")
        let after = try await terminal.outputBeforePrompt(after: answered)
        #expect(after.contains("Kept echo:first."), "Ctrl-D answered no: \(after)")
        #expect(try await terminal.enter("/chats").contains("echo:first"), "the REPL goes on, the chat kept")
    }

    /// A message typed at a question answers it no and is then sent, once in the history; a command typed there runs.
    @Test func aMessageTypedAtAQuestionCountsAsNoAndIsSent() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:first")
        try await terminal.ask("/delete")
        let answered = terminal.mark
        terminal.send("echo:typed while waiting\r")
        let after = try await terminal.outputBeforePrompt(after: answered)
        #expect(after.contains("Taken as no; sending your message."), "\(after)")
        let kept = try #require(after.range(of: "Kept echo:first."), "the question was answered no: \(after)")
        #expect(after[kept.upperBound...].contains("typed while waiting"), "the reply to the message follows: \(after)")
        let inputs = repl.fixture.requests(to: "/api/v1/chat").map { $0.field("input") }
        #expect(inputs == ["echo:first", "echo:typed while waiting"], "\(inputs)")
        let history = try String(contentsOfFile: repl.sandbox.root + "/state/llmster/history", encoding: .utf8)
        #expect(history.split(separator: "\n").filter { $0 == "echo:typed while waiting" }.count == 1, "\(history)")
        try await terminal.ask("/delete")
        let ran = try await terminal.enter("/ps")
        #expect(ran.contains("Taken as no; running /ps.") && ran.contains("Kept echo:first."), "\(ran)")
        #expect(ran.contains("acme/tiny-1b  "), "the command ran: \(ran)")
    }

    /// Lines typed during a reply, before the question a command asks appears, reach the question and the prompt in
    /// order: the message is not taken as the answer, and is sent; the command after it runs.
    @Test func linesTypedAheadOfAQuestionAreNotLost() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let echoed = try await terminal.sendLine("[[sim:stall=10]] echo:alpha beta gamma delta epsilon")
        try await terminal.waitFor("alpha", after: echoed)
        terminal.send("/delete\recho:typed ahead\r/ps\r")
        // Neither line typed ahead answers the question: each says so, and the question waits for its answer.
        let first = try await terminal.waitPast("it comes after it.", after: echoed)
        let second = try await terminal.waitPast("it comes after it.", after: first)
        try await terminal.waitFor("[y/N] ", after: second)
        #expect(repl.fixture.requests(to: "/api/v1/chat").count == 1, "nothing was sent while the question waited")
        terminal.send("n\r")
        let shown = try await terminal.waitFor("acme/tiny-1b  ", after: second)
        #expect(shown.contains("Kept "), "the conversation was kept: \(shown)")
        #expect(repl.fixture.requests(to: "/api/v1/chat").last?.field("input") == "echo:typed ahead")
        let reply = try #require(shown.range(of: "typed ahead", options: .backwards))
        #expect(shown[reply.upperBound...].contains("acme/tiny-1b  "), "/ps ran after the message: \(shown)")
    }

    /// Keys typed while a slow command runs are not echoed into its output; they wait in the next prompt's line.
    @Test func keysTypedDuringASlowCommandWaitForTheNextPrompt() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let gate = repl.sandbox.root + "/gate"
        #expect(mkfifo(gate, 0o600) == 0)
        let ran = try await terminal.sendLine("/run cat \(gate)")
        // Opening the pipe succeeds once the command has opened it: the command is running. Opened without waiting,
        // and looked at for at most 30 s, so a command that never runs fails the test instead of hanging it.
        var writer: Int32 = -1
        for _ in 0..<1500 where writer < 0 {
            writer = open(gate, O_WRONLY | O_NONBLOCK)
            if writer < 0 { try await Task.sleep(for: .milliseconds(20)) }
        }
        try #require(writer >= 0, "/run never opened the FIFO")
        terminal.send("echo:typed during the command")
        _ = write(writer, "opened\n", 7)
        close(writer)
        let output = try await terminal.outputBeforePrompt(after: ran)
        #expect(output.contains("It goes with your next message"), "\(output)")
        #expect(!output.contains("typed during"), "the keys are not echoed into the command's output: \(output)")
        try await terminal.waitFor("› echo:typed during the command", after: ran)
        let typed = terminal.mark
        terminal.send("\r")
        try await terminal.waitFor("typed during the command", after: typed)
        let sent = try #require(repl.fixture.requests(to: "/api/v1/chat").last?.field("input"))
        #expect(sent.hasSuffix("echo:typed during the command"), "the keys were sent as the next message: \(sent)")
    }

    @Test func ctrlLTypedDuringAReplyDoesNotClearTheScreenAfterIt() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        // Long enough that Ctrl-L arrives while the reply streams however late this test runs on a loaded machine:
        // at the prompt, Ctrl-L rightly clears the screen.
        let echoed = try await terminal.sendLine("[[sim:stall=10]] echo:alpha beta gamma delta epsilon")
        try await terminal.waitFor("alpha", after: echoed)
        terminal.send("\u{C}/ps\r")
        try await terminal.waitFor("acme/tiny-1b  ", after: echoed)
        #expect(!terminal.rawOutput.contains("\u{1B}[2J"), "the answer stays on the screen")
        #expect(terminal.text.contains("epsilon"))
    }

    @Test func textFromTheEditorTallerThanTheScreenIsSummarisedAndSentWhole() async throws {
        let repl = try ReplHarness()
        let script = repl.sandbox.root + "/editor.sh"
        try "printf 'echo:edited line %s\\n' $(seq 1 40) > \"$1\"\n".write(
            toFile: script, atomically: true, encoding: .utf8)
        var harness = repl
        harness.extra = ["VISUAL": "/bin/sh " + script]
        let terminal = try await harness.start(height: 20)
        let start = terminal.mark
        terminal.send("to edit\u{18}\u{5}")
        try await terminal.waitFor("[edited 40 lines]", after: start)
        #expect(!terminal.text.dropFirst(start).contains("edited line 20"), "the tall text is not drawn line by line")
        terminal.send("\r")
        try await terminal.waitFor("edited line 40", after: start + 20)
        let expected = (1...40).map { "echo:edited line \($0)" }.joined(separator: "\n")
        #expect(repl.fixture.requests(to: "/api/v1/chat").last?.field("input") == expected)
        var screen = TerminalScreen(width: 100, height: 20)
        screen.apply(terminal.rawOutput)
        #expect(
            screen.lines.contains { $0.hasSuffix("› [edited 40 lines]") },
            "the summary stays in the scrollback: \(screen.lines)")
    }
}
