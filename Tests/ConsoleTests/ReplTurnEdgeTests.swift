import Foundation
import Library
import Simulator
import TestSupport
import Testing

/// The REPL at the turn's edges: what was typed comes back when a turn is not sent, images wait like other items, and
/// a piped REPL says in its exit status that a reply was incomplete.
@Suite(.spawnsProcesses) struct ReplTurnEdgeTests {
    @Test func aFailedSendPutsTheMessageBackInTheLineAndLeavesNoUnansweredTurn() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start(["-m", "acme/tiny-1b"])
        #expect(try await terminal.enter("echo:first").contains("first"))
        let start = terminal.mark
        terminal.send("[[sim:status=500]] RECALL\r")
        let notice = "Nothing sent; the message is back in the line."
        let failed = try await terminal.waitFor(notice, after: start + 30)
        #expect(failed.contains("500"), "the failure is said: \(failed)")
        // The next prompt, after the notice, comes with the message in its line.
        let noticeEnd =
            start + 30 + failed.distance(from: failed.startIndex, to: try #require(failed.range(of: notice)).upperBound)
        try await terminal.waitFor("› [[sim:status=500]] RECALL", after: noticeEnd)
        let library = try LibraryStore(path: repl.sandbox.libraryPath)
        let conversation = try #require(try library.conversations().first)
        #expect(
            try library.messages(conversationId: conversation.id).map(\.text) == ["echo:first", "first"],
            "the failed message is not saved unanswered")
    }

    @Test func anAttachedImageIsShownOnThePromptListedAndDroppable() async throws {
        let repl = try ReplHarness()
        let path = repl.sandbox.root + "/red.png"
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0]).write(to: URL(fileURLWithPath: path))
        let terminal = try await repl.start(["-m", "acme/vision-7b"])
        let attached = try await terminal.enter("/attach " + path)
        #expect(attached.contains("+1 image"), "the prompt counts it: \(attached)")
        let listed = try await terminal.enter("/context")
        #expect(listed.contains("1. red.png · image · 12 B"), "\(listed)")
        let dropped = try await terminal.enter("/context drop 1")
        #expect(dropped.contains("Dropped red.png.") && !dropped.contains("+1 image"), "\(dropped)")
        #expect(try await terminal.enter("/context").contains("No context items wait"))
    }

    /// `printf 'a\nDROP\nc\n' | llmster`: every message is answered, each answer set apart, and the status says one was not whole.
    @Test func aPipedReplExitsWithTheIncompleteStatusAndSetsAnswersApart() async throws {
        let repl = try ReplHarness()
        let result = try await repl.runBounded(
            ["-m", "acme/tiny-1b"],
            input: "echo:alpha\n[[sim:drop-after=5]] echo:b c d e f g h i\necho:gamma\n")
        #expect(result.status == 6, "\(result)")
        #expect(
            result.output.contains("alpha\n\n") && result.output.contains("\n\ngamma"),
            "answers are set apart: \(result.output)")
        let clean = try await repl.runBounded(["-m", "acme/tiny-1b"], input: "echo:alpha\necho:beta\n")
        #expect(clean.status == 0, "\(clean)")
        let worst = try await repl.runBounded(
            ["-m", "acme/tiny-1b"],
            input: "[[sim:drop-after=5]] echo:b c d e f g h i\n[[sim:status=500]] echo:x\necho:gamma\n")
        #expect(worst.status == 1, "a message not sent is worse than an incomplete reply: \(worst)")
    }
}

/// The REPL in line mode (Emacs's M-x shell) at a cancellation.
@Suite(.spawnsProcesses) struct ReplLineModeCancelTests {
    /// Ctrl-C while the last row of a paragraph is still open: it was not printed yet (more text could change it), and
    /// must be printed before the end line, which stands on a line of its own.
    @Test func aCancelledReplyPrintsEverythingThatArrivedThenTheEndLineOnItsOwnLine() async throws {
        let repl = try ReplHarness(environment: ["TERM": "dumb"])
        let terminal = try await repl.start(["-m", "acme/tiny-1b"], echo: false)
        let start = terminal.mark
        terminal.send("[[sim:stall=30]] echo:alpha beta gamma delta epsilon\n")
        // What arrived is saved at least every second: once the library holds it, so has the display.
        let library = try LibraryStore(path: repl.sandbox.libraryPath)
        var arrived = ""
        for _ in 0..<1000 where arrived.isEmpty {
            arrived =
                (try? library.conversations().first.flatMap {
                    try library.messages(conversationId: $0.id).last { $0.role == .assistant }
                }?.text) ?? ""
            if arrived.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(arrived.hasPrefix("alpha"))
        terminal.send("\u{3}")
        let shown = try await terminal.waitFor("› ", after: start)
        #expect(shown.contains(arrived.trimmingCharacters(in: .whitespaces)), "what arrived is printed: \(shown)")
        let rows = shown.components(separatedBy: "\n")
        let end = try #require(rows.firstIndex { $0.contains("cancelled") }, "\(shown)")
        #expect(
            end > 0 && rows[end - 1].trimmingCharacters(in: .whitespaces).isEmpty, "the end line stands apart: \(rows)")
    }
}

/// The fresh-context question `[y/r/N]` takes only its answers: a one-word message such as `recall` is not "recap".
@Suite(.spawnsProcesses) struct ReplFreshContextQuestionTests {
    @Test func aMessageAtTheQuestionIsSentNextAndDecliningKeepsTheLibraryUnchanged() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start(["-m", "acme/tiny-1b"])
        #expect(try await terminal.enter("echo:first").contains("first"))
        repl.fixture.simulator.reset()
        var mark = terminal.mark
        terminal.send("echo:second\r")
        try await terminal.waitFor("[y/r/N] ", after: mark)
        mark = terminal.mark
        terminal.send("recall\r")
        let taken = try await terminal.waitFor("[y/r/N] ", after: mark)
        #expect(taken.contains("Taken as not now; sending your message."), "\(taken)")
        #expect(taken.contains("Nothing sent; the message is back in the line."), "\(taken)")
        mark = terminal.mark
        terminal.send("n\r")
        let declined = try await terminal.waitFor("› ", after: mark)
        #expect(declined.contains("Nothing sent; the message is back in the line."), "\(declined)")
        #expect(
            !repl.fixture.requests(to: "/api/v1/chat").contains {
                $0.field("input")?.hasPrefix("[llmster recap") == true
            },
            "recall was not taken as recap")
        let library = try LibraryStore(path: repl.sandbox.libraryPath)
        let conversation = try #require(try library.conversations().first)
        #expect(
            try library.messages(conversationId: conversation.id).map(\.text) == ["echo:first", "first"],
            "nothing left unanswered")
    }

    /// A line typed before the question appeared does not answer it: the question waits for its answer, and the line
    /// follows the message the question was about.
    @Test func aLineTypedAheadOfTheQuestionWaitsForItsAnswer() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start(["-m", "acme/tiny-1b"])
        #expect(try await terminal.enter("echo:first").contains("first"))
        repl.fixture.simulator.reset()
        var mark = terminal.mark
        terminal.send("echo:second\recho:third\r")
        let said = try await terminal.waitPast("That line was typed before the question appeared", after: mark)
        try await terminal.waitFor("[y/r/N] ", after: said)
        mark = terminal.mark
        terminal.send("y\r")
        try await terminal.waitFor("third", after: mark + 2)
        let inputs = repl.fixture.requests(to: "/api/v1/chat").map { $0.field("input") }
        #expect(inputs.suffix(2) == ["echo:second", "echo:third"], "\(inputs)")
    }
}
