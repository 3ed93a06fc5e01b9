import Foundation
import Library
import Simulator
import TerminalMarkdown
import TestSupport
import Testing

@Suite(.spawnsProcesses) struct ReplTests {
    @Test func messageGetsItsRenderedReplyAndTheContextFigureChanges() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        #expect(terminal.text.contains("acme/tiny-1b (loaded)"), "the prompt names the model and its state")
        #expect(terminal.text.contains("ctx 0/4k 0%"))
        let shown = try await terminal.enter("echo:Hello from **the** simulator.")
        let lines = shown.components(separatedBy: "\n")
        #expect(lines.contains { $0.hasSuffix("Hello from the simulator.") }, "the Markdown is rendered: \(shown)")
        let prompt = try #require(lines.last { $0.contains("ctx ") })
        #expect(!prompt.contains("ctx 0/4k"), "the context figure grew after the reply: \(prompt)")
        terminal.send("\u{4}")
        #expect(try await terminal.waitForExit() == 0)
    }

    @Test func tabCompletesCommandNames() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        var start = terminal.mark
        terminal.send("/mo\t")
        let listed = try await terminal.waitFor("/models", after: start)
        #expect(listed.contains("/model "), "both candidates are listed: \(listed)")
        start = terminal.mark
        terminal.send("s\r")
        let table = try await terminal.waitFor("acme/vision-7b", after: start)
        #expect(table.contains("MODEL") && table.contains("CAPABILITIES"), "/models ran: \(table)")
    }

    @Test func tabCompletesModelKeys() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let start = terminal.mark
        terminal.send("/model acme/thi\t")
        try await terminal.waitFor("acme/thinker-8b", after: start)
    }

    @Test func ctrlCDuringAReplyKeepsThePartialReplyAndReturnsToThePrompt() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let start = try await terminal.sendLine("[[sim:stall=30]] echo:alpha beta gamma delta epsilon")
        try await terminal.waitFor("alpha", after: start)
        terminal.send("\u{3}")
        let after = try await terminal.waitFor("› ", after: start)
        let reply = try #require(after.components(separatedBy: "[acme/tiny-1b").first)
        #expect(reply.contains("incomplete"), "\(after)")
        #expect(!reply.contains("epsilon"))
        terminal.send("\u{4}")
        #expect(try await terminal.waitForExit() == 0)
        let chats = try await repl.runBounded(["chats", "--json"])
        let list = try JSONSerialization.jsonObject(with: Data(chats.output.utf8)) as? [[String: Any]]
        let show = try await repl.runBounded(["show", try #require(list?.first?["id"] as? String)])
        #expect(show.output.contains("incomplete"), "\(show)")
        #expect(show.output.contains("alpha"))
    }

    @Test func draftComesBackAfterOpeningAnotherChatAndReturning() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:first chat")
        terminal.send("half-written thought")
        try await terminal.waitFor("half-written thought")
        try await terminal.interruptLine()
        try await terminal.enter("/new")
        try await terminal.enter("echo:second chat")
        let start = terminal.mark
        terminal.send("/open echo:first chat\r")
        let reopened = try await terminal.waitFor("half-written thought", after: start + 20)
        #expect(reopened.contains("Opened"))
    }

    @Test func historySurvivesARestart() async throws {
        let repl = try ReplHarness()
        let first = try await repl.start()
        try await first.enter("/ps")
        try await first.enter(" /chats")
        first.send("\u{4}")
        _ = try await first.waitForExit()
        let second = try await repl.start()
        let start = second.mark
        second.send("\u{10}")
        try await second.waitFor("/ps", after: start)
        #expect(!second.text.dropFirst(start).contains("/chats"), "a line starting with a space is not recorded")
    }

    @Test func choosingAModelAppliesTheLoadPolicy() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:on the tiny model")
        let shown = try await terminal.enter("/model acme/thinker-8b")
        #expect(shown.contains("Unloaded acme/tiny-1b"), "\(shown)")
        let unloads = repl.fixture.requests(to: "/api/v1/models/unload")
        #expect(unloads.count == 1)
        #expect(unloads.first?.field("instance_id") == "acme/tiny-1b")
        #expect(repl.fixture.requests(to: "/api/v1/models/load").first?.field("model") == "acme/thinker-8b")
        #expect(shown.contains("acme/thinker-8b (loaded)"), "the prompt shows the new model: \(shown)")
    }

    /// A command typed right in a new chat that has nothing for it yet says so, with no usage line.
    @Test func branchingCommandsInANewChatSayWhatIsMissingWithoutUsage() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let retry = try await terminal.enter("/retry")
        #expect(retry.contains("/retry: there is nothing to retry yet") && !retry.contains("usage:"), "\(retry)")
        let edit = try await terminal.enter("/edit")
        #expect(edit.contains("/edit: there is no message to edit yet") && !edit.contains("usage:"), "\(edit)")
        terminal.send("/quit\r")
        #expect(try await terminal.waitForExit() == 0)
    }

    @Test func badCommandsAndBadArgumentsGetUsageNotACrash() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let unknown = try await terminal.enter("/modle acme/tiny-1b")
        #expect(unknown.contains("unknown command /modle (did you mean /model?)"), "\(unknown)")
        let bad = try await terminal.enter("/set temperature hot")
        #expect(bad.contains("usage: /set [KEY VALUE]"), "\(bad)")
        let worse = try await terminal.enter("/models --colour")
        #expect(worse.contains("usage: /models"), "\(worse)")
        let quote = try await terminal.enter("/mv \"unclosed")
        #expect(quote.contains("usage: /mv"), "\(quote)")
        terminal.send("/quit\r")
        #expect(try await terminal.waitForExit() == 0)
    }

    @Test func pipedInputSendsEachLineAndExitsAtTheEnd() async throws {
        let repl = try ReplHarness()
        let result = try await repl.runBounded([], input: "echo:first answer\necho:second answer\n")
        #expect(result.status == 0, "\(result)")
        #expect(result.output == "first answer\n\nsecond answer\n", "a blank line sets the answers apart")
    }
}

@Suite(.spawnsProcesses) struct ReplInputTests {
    @Test func modelKeyMatchesAreListedWithBadges() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let start = terminal.mark
        terminal.send("/model acme/t\t\t")
        let listed = try await terminal.waitFor("acme/toolsmith-12b  not loaded · tools", after: start)
        #expect(listed.contains("acme/thinker-8b  not loaded · reasoning"), "\(listed)")
        #expect(listed.contains("acme/tiny-1b  loaded"), "\(listed)")
    }

    @Test func tripleQuotesAndCtrlJMakeOneMultiLineMessage() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        // One line at a time, each after the continuation prompt (lines typed at once: ReplTypeAheadTests).
        for line in ["\"\"\"", "echo:first line", "second line"] {
            let start = terminal.mark
            terminal.send(line + "\r")
            try await terminal.waitFor("… ", after: start + line.count)
        }
        try await terminal.enter("\"\"\"")
        terminal.send("echo:top\u{0A}bottom")
        try await terminal.waitFor("bottom")
        try await terminal.enter("")
        let inputs = repl.fixture.requests(to: "/api/v1/chat").map { $0.field("input") }
        #expect(inputs == ["echo:first line\nsecond line", "echo:top\nbottom"])
    }

    @Test func ctrlXCtrlEEditsTheMessageInTheEditor() async throws {
        let repl = try ReplHarness()
        let script = repl.sandbox.root + "/editor.sh"
        try "printf 'echo:edited in the editor' > \"$1\"\n".write(toFile: script, atomically: true, encoding: .utf8)
        var harness = repl
        // Run through sh rather than exec'd: a script just written can be "text file busy" while
        // another test's spawn briefly holds the write descriptor.
        harness.extra = ["EDITOR": "/bin/sh " + script]
        let terminal = try await harness.start()
        terminal.send("draft to edit\u{18}\u{5}")
        try await terminal.waitFor("edited in the editor")
        // The line comes back in place: no prompt is left behind, empty or with the draft.
        var screen = TerminalScreen(width: 100, height: 40)
        screen.apply(terminal.rawOutput)
        let prompts = screen.lines.filter { $0.hasPrefix("›") }
        #expect(prompts == ["› echo:edited in the editor"], "\(screen.lines)")
        try await terminal.enter("")
        #expect(repl.fixture.requests(to: "/api/v1/chat").last?.field("input") == "echo:edited in the editor")
    }

    @Test func sigtermAtThePromptKeepsTheDraftAndExits143() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:a reply")
        terminal.send("unfinished words")
        try await terminal.waitFor("unfinished words")
        kill(terminal.pid, SIGTERM)
        #expect(try await terminal.waitForExit() == 143)
        let again = try await repl.start()
        let start = again.mark
        again.send("/open echo:a reply\r")
        try await again.waitFor("unfinished words", after: start + 20)
    }

    /// The draft SIGTERM keeps is the message the line would send (every face reads it): an escaped slash is one slash.
    @Test func sigtermKeepsAnEscapedLineAsTheMessageItSends() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:a reply")
        terminal.send("//etc/hosts maps names")
        try await terminal.waitFor("//etc/hosts maps names")
        kill(terminal.pid, SIGTERM)
        #expect(try await terminal.waitForExit() == 143)
        #expect(try repl.firstDraft() == "/etc/hosts maps names")
        let again = try await repl.start()
        let start = again.mark
        again.send("/open echo:a reply\r")
        try await again.waitFor("› //etc/hosts maps names", after: start + 20)
    }

    /// A kept draft is announced just before the prompt that shows it: after the banner when the REPL starts on the
    /// conversation, after "Opened …" when `/open` switches to it.
    @Test func aDraftIsAnnouncedAfterWhatOpenedIt() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:a reply")
        terminal.send("kept words")
        try await terminal.waitFor("kept words")
        try await terminal.interruptLine()
        try await terminal.enter("/new")
        let opened = try await terminal.enter("/open echo:a reply")
        let said = try #require(opened.range(of: "Opened echo:a reply."), "\(opened)")
        let draft = try #require(opened.range(of: "Your unsent draft is back"), "\(opened)")
        #expect(said.upperBound <= draft.lowerBound, "\(opened)")
        terminal.send("\u{4}")
        #expect(try await terminal.waitForExit() == 0)
        let again = try await repl.start(["-c"])
        let start = again.text
        let banner = try #require(start.range(of: "type a message, or /help"), "\(start)")
        let back = try #require(start.range(of: "Your unsent draft is back"), "\(start)")
        #expect(banner.upperBound <= back.lowerBound, "\(start)")
    }

    /// SIGHUP (a closed terminal window) at an empty prompt keeps the draft an earlier Ctrl-C kept.
    @Test func sighupAtAnEmptyPromptKeepsTheDraftCtrlCKept() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:a reply")
        terminal.send("draft kept by ctrl c")
        try await terminal.waitFor("draft kept by ctrl c")
        try await terminal.interruptLine()
        kill(terminal.pid, SIGHUP)
        #expect(try await terminal.waitForExit() == 129)
        #expect(try repl.firstDraft() == "draft kept by ctrl c")
    }

    /// A terminal window closed at the prompt: the program's writes fail from then on, and the line typed there is
    /// kept as the draft, as SIGHUP keeps it, whichever of the hang-up and the signal the REPL sees first.
    @Test func aClosedTerminalKeepsTheLineAsTheDraft() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:a reply")
        terminal.send("line at the prompt when the window closed")
        try await terminal.waitFor("line at the prompt when the window closed")
        terminal.hangUp()
        #expect(try await terminal.waitForExit() == 129, "it exits as SIGHUP ends it, not by a crash")
        #expect(try repl.firstDraft() == "line at the prompt when the window closed")
    }

    /// A line set aside by Ctrl-C stays the draft when another message is sent at the empty prompt after it.
    @Test func aLineSetAsideByCtrlCOutlivesAnotherMessage() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:a reply")
        terminal.send("set aside for later")
        try await terminal.waitFor("set aside for later")
        try await terminal.interruptLine()
        try await terminal.enter("echo:another question")
        terminal.send("\u{4}")
        #expect(try await terminal.waitForExit() == 0)
        #expect(try repl.firstDraft() == "set aside for later")
    }

    /// Two faces on one chat: a draft another client saved while the REPL had the chat open is not undone by Ctrl-C
    /// at the REPL's empty prompt, nor by quitting with the draft the REPL loaded still as it was; what the user typed
    /// at the REPL is saved.
    @Test func aDraftAnotherClientSavedOutlivesTheReplsUntouchedInput() async throws {
        let repl = try ReplHarness()
        let first = try await repl.start()
        try await first.enter("echo:a reply")
        first.send("the REPL's draft")
        try await first.waitFor("the REPL's draft")
        try await first.interruptLine()
        first.send("\u{4}")
        #expect(try await first.waitForExit() == 0)
        #expect(try repl.firstDraft() == "the REPL's draft")

        let terminal = try await repl.start(["-c"])
        try await terminal.waitFor("› the REPL's draft")
        let library = try LibraryStore(path: repl.sandbox.libraryPath)
        let id = try #require(try library.conversations().first?.id)
        try library.setDraft(conversationId: id, text: "typed in an editor meanwhile")
        // Ctrl-C on the line as loaded, then Ctrl-D: the REPL's input is as it showed it.
        try await terminal.interruptLine()
        terminal.send("\u{4}")
        #expect(try await terminal.waitForExit() == 0)
        #expect(try repl.firstDraft() == "typed in an editor meanwhile")

        let again = try await repl.start(["-c"])
        try await again.waitFor("› typed in an editor meanwhile")
        try library.setDraft(conversationId: id, text: "")
        again.send(" and more")
        try await again.waitFor("meanwhile and more")
        try await again.interruptLine()
        again.send("\u{15}\u{4}")
        #expect(try await again.waitForExit() == 0)
        #expect(try repl.firstDraft() == "typed in an editor meanwhile and more", "the REPL's typing is saved")
    }

    /// A message given back to the line and then cleared (Ctrl-U) is not kept: Ctrl-D does not bring it back.
    @Test func aReturnedMessageClearedFromTheLineIsNotKept() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:a reply")
        let start = terminal.mark
        terminal.send("[[sim:status=500]] msg D\r")
        try await terminal.waitFor("› [[sim:status=500]] msg D", after: start + 10)
        terminal.send("\u{15}\u{4}")
        #expect(try await terminal.waitForExit() == 0)
        #expect(try repl.firstDraft().isEmpty)
    }

    /// SIGTERM while a reply streams keeps what was typed meanwhile, which no prompt showed, as the draft.
    @Test func sigtermDuringAReplyKeepsWhatWasTypedMeanwhile() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:first")
        let echoed = try await terminal.sendLine("[[sim:stall=30]] echo:alpha beta gamma delta epsilon")
        try await terminal.waitFor("alpha", after: echoed)
        terminal.send("typed ahead line\rsecond line\r")
        try await terminal.waitUntilInputIsQueued("typed ahead line\nsecond line\n".utf8.count)
        kill(terminal.pid, SIGTERM)
        #expect(try await terminal.waitForExit() == 143)
        #expect(try repl.firstDraft() == "typed ahead line\nsecond line")
        let shown = try await repl.runBounded(["show", "echo:first"])
        #expect(shown.output.contains("Stopped by SIGTERM"), "the partial reply says why it stopped: \(shown.output)")
    }

    /// SIGTERM while a reply streams, with nothing typed meanwhile, keeps the draft an earlier Ctrl-C set aside (it was
    /// saved empty, and the draft wiped).
    @Test func sigtermDuringAReplyKeepsTheDraftCtrlCSetAside() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:first")
        terminal.send("set aside for later")
        try await terminal.waitFor("set aside for later")
        try await terminal.interruptLine()
        let echoed = try await terminal.sendLine("[[sim:stall=30]] echo:alpha beta gamma delta epsilon")
        try await terminal.waitFor("alpha", after: echoed)
        kill(terminal.pid, SIGTERM)
        #expect(try await terminal.waitForExit() == 143)
        #expect(try repl.firstDraft() == "set aside for later")
    }

    /// A terminal window closed while a reply streams: the partial reply is saved with SIGHUP's reason and the REPL
    /// exits as SIGHUP ends it, though every write to the terminal now fails.
    @Test func aTerminalClosedDuringAReplySavesThePartialReply() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:first")
        let echoed = try await terminal.sendLine("[[sim:stall=30]] echo:alpha beta gamma delta epsilon")
        try await terminal.waitFor("alpha", after: echoed)
        terminal.hangUp()
        #expect(try await terminal.waitForExit() == 129, "it exits as SIGHUP ends it, not by a crash")
        let shown = try await repl.runBounded(["show", "echo:first"])
        #expect(shown.output.contains("alpha"), "the partial reply is saved: \(shown.output)")
        #expect(shown.output.contains("Stopped by SIGHUP"), "it says why it stopped: \(shown.output)")
    }

    @Test func setSavesValidatedSettingsOnTheConversation() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:hello")
        let set = try await terminal.enter("/set temperature 0.3")
        #expect(set.contains("temperature = 0.3"))
        let rejected = try await terminal.enter("/set reasoning high")
        #expect(rejected.contains("has no reasoning options"), "\(rejected)")
        try await terminal.enter("echo:again")
        #expect(repl.fixture.requests(to: "/api/v1/chat").last?.field("temperature") == "0.3")
    }
}

@Suite(.spawnsProcesses) struct ReplRecoveryTests {
    @Test func lostServerContextOffersAFreshOne() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:first")
        repl.fixture.simulator.reset()
        let start = terminal.mark
        terminal.send("echo:second after a restart\r")
        let question = try await terminal.waitFor("[y/r/N]", after: start)
        // The question is wrapped at spaces to the terminal's width.
        let asked = question.replacingOccurrences(of: "\n", with: " ")
        #expect(asked.contains("Continue with a fresh server context? y: empty; r: with a recap, the earlier turns"))
        #expect(!question.contains("\nsecond after a restart"), "nothing was answered yet")
        let answered = try await terminal.enter("y")
        #expect(answered.contains("second after a restart"), "\(answered)")
        let chats = repl.fixture.requests(to: "/api/v1/chat")
        #expect(chats.last?.field("previous_response_id") == nil)
        #expect(chats.last?.field("input") == "echo:second after a restart")
    }

    /// The recap choice shows what it costs, then starts the fresh context with the earlier turns.
    @Test func lostServerContextCanContinueWithARecap() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:the heron is the code word")
        repl.fixture.simulator.reset()
        let start = terminal.mark
        terminal.send("recall\r")
        let question = try await terminal.waitFor("[y/r/N]", after: start)
        #expect(
            question.replacingOccurrences(of: "\n", with: " ").contains(
                "r: with a recap, the earlier turns as a transcript (about "), "\(question)")
        _ = try await terminal.enter("r")
        let input = repl.fixture.requests(to: "/api/v1/chat").last?.field("input") ?? ""
        #expect(
            input.hasPrefix("[llmster recap:") && input.contains("User: echo:the heron is the code word")
                && input.hasSuffix("recall"), "\(input)")
        #expect(repl.fixture.requests(to: "/api/v1/chat").last?.field("previous_response_id") == nil)
    }
}

@Suite(.spawnsProcesses) struct ReplAfterReplyTests {
    @Test func summarizerTitlesTheConversationWithoutStoringOnTheServer() async throws {
        let repl = try ReplHarness()
        try repl.sandbox.write("summarizer_model = acme/tiny-1b\n", to: "config/llmster/config")
        let terminal = try await repl.start()
        try await terminal.enter("echo:the first message")
        let titling = repl.fixture.requests(to: "/api/v1/chat").filter { $0.field("store") == "false" }
        #expect(titling.count == 1)
        #expect(titling.first?.field("model") == "acme/tiny-1b")
        #expect(titling.first?.field("stream") != "true")
        let chats = try await repl.runBounded(["chats", "--json"])
        #expect(chats.output.contains("\"title\""))
        #expect(
            !chats.output.contains("\"title\":\"echo:the first message\""),
            "the summarizer's title replaced the first message: \(chats.output)")
    }

    @Test func longRepliesEndWithATerminalNotification() async throws {
        let repl = try ReplHarness(environment: ["PATH": "/nonexistent"])
        try repl.sandbox.write("notify_after_seconds = 0\n", to: "config/llmster/config")
        let terminal = try await repl.start()
        try await terminal.enter("echo:done now")
        #expect(
            terminal.rawOutput.contains("\u{1B}]777;notify;acme/tiny-1b finished;done now\u{7}"),
            "\(terminal.rawOutput.debugDescription)")
    }
}

@Suite(.spawnsProcesses) struct ReplJobControlTests {
    @Test func ctrlZLeavesACookedTerminalAndFgResumesThePrompt() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        #expect(!terminal.isCooked, "readline has the terminal in raw mode at the prompt")
        terminal.send("\u{1A}")
        let deadline = ContinuousClock.now + .seconds(30)
        while !terminal.isStopped, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(terminal.isStopped)
        #expect(terminal.isCooked, "while stopped the shell gets a sane terminal")
        kill(terminal.pid, SIGCONT)
        let start = terminal.mark
        terminal.send("/ps\r")
        try await terminal.waitFor("acme/tiny-1b", after: start)
    }
}

@Suite(.spawnsProcesses) struct ReplLibraryCommandTests {
    @Test func showUsesThePagerAndCopySendsOSC52() async throws {
        let repl = try ReplHarness(environment: ["PAGER": "cat"])
        let terminal = try await repl.start()
        try await terminal.enter("echo:Run this:\n\n```sh\nls -la\n```")
        let shown = try await terminal.enter("/show")
        #expect(shown.contains("You"), "\(shown)")
        #expect(shown.contains("ls -la"))
        try await terminal.enter("/copy code 1")
        let encoded = Data("ls -la".utf8).base64EncodedString()
        #expect(terminal.rawOutput.contains("\u{1B}]52;c;\(encoded)\u{7}"))
        let usage = try await terminal.enter("/copy code 7")
        #expect(usage.contains("the last reply has 1 code blocks"), "\(usage)")
    }

    @Test func foldersMoveAndPinOrganiseTheChat() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:organise me")
        try await terminal.enter("/mv Work/Research")
        try await terminal.enter("/pin")
        let listed = try await terminal.enter("/chats Work/Research")
        #expect(listed.contains("📌") && listed.contains("echo:organise me"), "\(listed)")
        let prompt = try await terminal.enter("/rename Tidy title")
        #expect(prompt.contains("Work/Research/Tidy title"), "the prompt shows folder and title: \(prompt)")
    }

    /// Every organisation command says what it did, and removing a folder that holds things asks first, naming
    /// what it holds and where it goes.
    @Test func organisationCommandsSayWhatTheyDidAndFolderRemovalAsks() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        #expect(try await terminal.enter("/folder new Job/Research").contains("Created folder Job/Research."))
        try await terminal.enter("echo:keep me")
        #expect(try await terminal.enter("/mv Job").contains("Moved this conversation to folder Job."))
        #expect(try await terminal.enter("/pin").contains("Pinned"))
        #expect(try await terminal.enter("/unpin").contains("Unpinned."))
        #expect(try await terminal.enter("/rename Kept chat").contains("Renamed this conversation to Kept chat."))
        #expect(
            try await terminal.enter("/folder rename Job/Research Notes").contains(
                "Renamed folder Job/Research to Notes."))
        let start = terminal.mark
        terminal.send("/folder rm Job\r")
        let question = try await terminal.waitFor("[y/N] ", after: start)
        #expect(
            question.contains("Remove folder Job? Its 1 conversation and sub-folder Notes move to the top level."),
            "\(question)")
        #expect(try await terminal.enter("n").contains("Kept folder Job."))
        #expect(try await terminal.enter("/folder list").contains("Job/Notes"), "nothing moved after a no")
        let again = terminal.mark
        terminal.send("/folder rm Job\r")
        try await terminal.waitFor("[y/N] ", after: again)
        #expect(try await terminal.enter("y").contains("Removed folder Job."))
        #expect(try await terminal.enter("/folder new Notes/Deep").contains("Created folder Notes/Deep."))
        let single = terminal.mark
        terminal.send("/folder rm Notes\r")
        let one = try await terminal.waitFor("[y/N] ", after: single)
        #expect(one.contains("Remove folder Notes? Its sub-folder Deep moves to the top level."), "\(one)")
        #expect(try await terminal.enter("n").contains("Kept folder Notes."))
        let deleting = terminal.mark
        terminal.send("/delete\r")
        #expect(
            try await terminal.waitFor("[y/N] ", after: deleting).contains("Delete Kept chat and all its messages?"))
        #expect(try await terminal.enter("y").contains("Deleted Kept chat."))
    }

    /// `/search` lays its hits out as `llmster search` does: a table fitted to the terminal, the match marked with
    /// `‹ ›` rather than brackets that read as Markdown.
    @Test func searchHitsAreATableFittedToTheTerminal() async throws {
        let repl = try ReplHarness()
        let long =
            "echo:the quarterly report covers revenue, churn, hiring plans and a long list of other things worth reading"
        #expect(try await repl.runBounded(["ask", long]).status == 0)
        let terminal = try await repl.start(width: 60)
        let found = try await terminal.enter("/search churn")
        let rows = found.split(separator: "\n").map { String($0).trimmingCharacters(in: .whitespaces) }
        #expect(rows.contains { $0.hasPrefix("ID") && $0.contains("TITLE") && $0.contains("MATCH") }, "\(found)")
        #expect(found.contains("‹churn›"), "\(found)")
        #expect(!found.contains("[churn]"))
        #expect(rows.allSatisfy { DisplayWidth.of($0) <= 60 }, "\(rows)")
        let cli = try await repl.runBounded(["search", "churn"])
        #expect(cli.output.contains("‹churn›") && cli.output.hasPrefix("ID"), "\(cli)")
    }
}
