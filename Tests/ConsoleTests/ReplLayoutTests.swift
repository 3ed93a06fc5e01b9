import Foundation
import Simulator
import TerminalMarkdown
import TestSupport
import Testing

/// Command output laid out to the terminal's width: wrapped at spaces with a hanging indent, never wider.
@Suite(.spawnsProcesses) struct ReplLayoutTests {
    /// The lines of `text` wider than `width` columns.
    private func tooWide(_ text: String, width: Int) -> [String] {
        text.components(separatedBy: "\n").filter { DisplayWidth.of($0) > width }
    }

    /// Expects no line of `text` to be wider than `width` columns.
    private func expectFits(_ text: String, width: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(tooWide(text, width: width).isEmpty, "\(tooWide(text, width: width))", sourceLocation: sourceLocation)
    }

    /// `text` with every run of spaces and line breaks made one space.
    private func flattened(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    }

    @Test(arguments: [60, 100])
    func helpFitsTheTerminalAndBreaksOnlyBetweenWords(width: Int) async throws {
        let repl = try ReplHarness(environment: ["PAGER": "cat"])
        let terminal = try await repl.start(width: width)
        let help = try await terminal.enter("/help")
        expectFits(help, width: width)
        let flat = flattened(help)
        for summary in [
            "Use model KEY (or row N of the list) for this conversation, loading it and unloading the previous one; without KEY, pick from a numbered list.",
            "List the server's models: loaded state, size, format, capabilities.",
            "Move a conversation (default: this one) into a folder (/ for the top level)."
        ] {
            #expect(flat.contains(summary), "'\(summary)' is whole, wrapped only at spaces")
        }
        let modelLine = try #require(help.components(separatedBy: "\n").first { $0.hasPrefix("  /model [KEY|N]") })
        #expect(modelLine.contains("Use model KEY"), "a short command has its description beside it: \(modelLine)")
    }

    @Test(arguments: [60, 100])
    func theGreetingTheChatListAndThePromptFitTheTerminal(width: Int) async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start(["--demo"], width: width)
        expectFits(terminal.text, width: width)
        #expect(flattened(terminal.text).contains("the library is temporary."))
        let title = "A conversation whose title is far longer than any terminal line at sixty columns"
        try await terminal.enter("/new " + title)
        let chats = try await terminal.enter("/chats")
        expectFits(chats, width: width)
        #expect(chats.contains("TITLE") && chats.contains("A conversation"), "the chats table: \(chats)")
    }

    @Test(arguments: [60, 100])
    func chatsInAFolderIncludeItsSubFoldersAndSaySo(width: Int) async throws {
        let repl = try ReplHarness()
        #expect(
            try await repl.runBounded(["ask", "--folder", "Work/Clients", "echo:Quarterly report for the client"])
                .status == 0
        )
        #expect(try await repl.runBounded(["ask", "echo:Not at work"]).status == 0)
        let terminal = try await repl.start(width: width)
        let chats = try await terminal.enter("/chats Work")
        expectFits(chats, width: width)
        #expect(flattened(chats).contains("In Work and its sub-folders (Work/Clients):"), "\(chats)")
        #expect(chats.contains("Quarterly") && !chats.contains("Not at work"), "\(chats)")
        let cli = try await repl.runBounded(["chats", "--folder", "Work"])
        #expect(
            cli.output.hasPrefix("In Work and its sub-folders (Work/Clients):"),
            "both faces say it the same way: \(cli)")
        let unknown = try await terminal.enter("/chats Nowhere")
        #expect(unknown.contains("there is no folder 'Nowhere'"))
    }

    /// llmster's own notices keep every word whole on the screen: a line wider than the terminal is wrapped at
    /// spaces by llmster, never cut by the terminal at its edge.
    @Test(arguments: [40, 60, 100])
    func noticesKeepTheirWordsWholeAtTheEdge(width: Int) async throws {
        let repl = try ReplHarness()
        try repl.sandbox.write("a few words", to: "a-file-with-a-rather-long-name-for-the-test.txt")
        let path = repl.sandbox.root + "/a-file-with-a-rather-long-name-for-the-test.txt"
        let terminal = try await repl.start(width: width)
        let notices = [
            try await terminal.enter("/context"),
            try await terminal.enter("/file \(path) \(path)"),
            try await terminal.enter("/server"),
            try await terminal.enter("/context clear")
        ]
        var screen = TerminalScreen(width: width, height: 400, widthOf: DisplayWidth.of)
        screen.apply(terminal.rawOutput)
        let rows = screen.lines
        for expected in [
            "No context items wait for the next message (/file, /url, /run and /attach add them).",
            "They go with your next message (/context lists what waits).",
            "no profiles are configured: add `server.NAME = http://HOST:1234` to the config."
        ] {
            #expect(notices.contains { flattened($0).contains(expected) }, "\(expected) was said: \(notices)")
            for word in expected.split(separator: " ") where word.count > 1 {
                #expect(
                    rows.contains { $0.split(separator: " ").contains(word) },
                    "'\(word)' is split on the screen: \(rows)")
            }
        }
    }

    /// A question keeps its words whole too: readline shows only the last row of its prompt, laid out by llmster.
    @Test(arguments: [40, 60])
    func questionsKeepTheirWordsWholeAtTheEdge(width: Int) async throws {
        let repl = try ReplHarness()
        #expect(try await repl.runBounded(["ask", "--folder", "Work", "echo:Quarterly report"]).status == 0)
        let terminal = try await repl.start(width: width)
        let start = terminal.mark
        terminal.send("/folder rm Work\r")
        try await terminal.waitFor("[y/N] ", after: start)
        var screen = TerminalScreen(width: width, height: 400, widthOf: DisplayWidth.of)
        screen.apply(terminal.rawOutput)
        let rows = screen.lines
        let expected = "Remove folder Work? Its 1 conversation moves to the top level. [y/N]"
        #expect(flattened(rows.joined(separator: "\n")).contains(expected), "\(rows)")
        for word in expected.split(separator: " ") {
            #expect(
                rows.contains { $0.split(separator: " ").contains(word) }, "'\(word)' is split on the screen: \(rows)")
        }
        let answered = try await terminal.enter("n")
        #expect(answered.contains("Kept folder Work."), "\(answered)")
    }

    /// A reply's prose takes every column of a terminal: a paragraph as wide as the terminal is one row (the
    /// terminal's wrap waits for a next character that never comes), where it used to wrap its last word.
    @Test(arguments: [60, 100])
    func proseAsWideAsTheTerminalTakesOneRow(width: Int) async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start(width: width)
        let paragraph = String(repeating: "x", count: width - 2) + " z"
        let echoed = try await terminal.sendLine("echo:" + paragraph)
        try await terminal.waitFor("› ", after: echoed)
        var screen = TerminalScreen(width: width, height: 40, widthOf: DisplayWidth.of)
        screen.apply(terminal.rawOutput)
        let rows = screen.lines
        let row = try #require(rows.lastIndex { $0.hasPrefix("xxxx") }, "\(rows)")
        #expect(rows[row] == paragraph, "\(rows)")
        #expect(!rows[row + 1].hasPrefix("z"), "no row holds the last word alone: \(rows)")
    }

    @Test(arguments: [60, 100])
    func theStatsLineOfAFailedReplyIsCutToTheWidth(width: Int) async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start(width: width)
        let echoed = try await terminal.sendLine("[[sim:error]] echo:some words before the failure")
        try await terminal.waitFor("⚠ error", after: echoed)
        try await terminal.waitFor("› ", after: echoed)
        var screen = TerminalScreen(width: width, height: 40, widthOf: DisplayWidth.of)
        screen.apply(terminal.rawOutput)
        let lines = screen.lines
        let stats = try #require(lines.lastIndex { $0.contains("⚠ error") })
        #expect(DisplayWidth.of(lines[stats]) < width, "the stats line takes one row: \(lines[stats...])")
        let reported = lines.filter { $0.contains("The server reported") }
        if lines[stats].hasSuffix("…") {
            #expect(
                lines[stats + 1].hasPrefix("llmster: The server reported") && reported.count == 2,
                "a reason cut from the stats line follows it whole, once: \(lines[stats...])")
        } else {
            #expect(
                reported == [lines[stats]], "a reason the stats line shows whole is not repeated: \(lines[stats...])")
        }
    }

    @Test func aCancelledReplyIsReportedOnce() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        // The reply stalls after its first words, before "epsilon": what follows the echoed line is the reply.
        let echoed = try await terminal.sendLine("[[sim:stall=30]] echo:alpha beta gamma delta epsilon")
        try await terminal.waitFor("alpha", after: echoed)
        terminal.send("\u{3}")
        let after = try await terminal.waitFor("› ", after: echoed)
        #expect(after.contains("⚠ incomplete: cancelled"), "\(after)")
        #expect(!after.contains("llmster: Cancelled"), "the mark says it once: \(after)")
    }

    /// A long prompt shows its progress with the time it has taken, and Ctrl-C during it says what the cancel does
    /// not stop: LM Studio finishes processing the prompt first.
    @Test func ctrlCWhileThePromptIsProcessedSaysTheServerFinishesIt() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let start = terminal.mark
        terminal.send("[[sim:prefill=90]] echo:a long prompt\r")
        // The time moves on without events: a second tick before the first progress event, 30 s in.
        try await terminal.waitFor("Processing prompt 0% · 1.0 s", after: start)
        terminal.send("\u{3}")
        let after = try await terminal.waitFor("› ", after: start)
        #expect(after.contains("LM Studio finishes processing it"), "\(after)")
    }

    @Test(arguments: [60, 100])
    func modelsLoadedInstancesAndSettingsAreTablesAtTheTerminalWidth(width: Int) async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start(width: width)
        try await terminal.enter("/load acme/thinker-8b")
        let models = try await terminal.enter("/models")
        expectFits(models, width: width)
        #expect(models.contains("acme/toolsmith-12b "), "model keys are never cut")
        let header = try #require(models.components(separatedBy: "\n").first { $0.hasPrefix("MODEL") })
        #expect(header.contains("LOADED") && header.contains("SIZE"), "the important columns stay: \(header)")
        #expect(header.contains("FORMAT") == (width >= 100), "FORMAT is dropped first on a narrow terminal: \(header)")
        let loaded = try await terminal.enter("/ps")
        expectFits(loaded, width: width)
        #expect(loaded.contains("acme/thinker-8b"))
        let settings = try await terminal.enter("/set")
        expectFits(settings, width: width)
        #expect(settings.contains("temperature") && settings.contains("speak"))
    }

    @Test(arguments: [60, 100])
    func errorLinesWrapBetweenWordsWithAHangingIndent(width: Int) async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start(width: width)
        let unknownSetting = try await terminal.enter("/set no_such_setting 1")
        expectFits(unknownSetting, width: width)
        let words = flattened(unknownSetting).split(separator: " ")
        for key in ["temperature,", "top_p,", "repeat_penalty,", "max_output_tokens,", "context_length,"] {
            #expect(words.contains(Substring(key)), "'\(key)' is whole at \(width) columns: \(unknownSetting)")
        }
        let lines = unknownSetting.components(separatedBy: "\n").filter {
            !$0.trimmingCharacters(in: .whitespaces).isEmpty
        }
        let first = try #require(lines.firstIndex { $0.hasPrefix("/set: ") })
        if width == 60 {
            #expect(
                lines[first + 1].hasPrefix("  ") && !lines[first + 1].hasPrefix("   "),
                "continuations hang by two: \(lines)")
        }
        let unknownCommand = try await terminal.enter("/modle acme/a-model-name-that-makes-the-line-long")
        expectFits(unknownCommand, width: width)
        #expect(flattened(unknownCommand).contains("unknown command /modle (did you mean /model?); /help lists them"))
    }
}
