import Foundation
import Library
import Simulator
import TestSupport
import Testing

/// `/retry`, `/edit`, `/alt` and a failed first message, in the REPL on a pseudo-terminal.
@Suite(.spawnsProcesses) struct ReplBranchingTests {
    @Test func retryAsksInTheReplacedAnswersContextAndAltSwitchesBack() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:one")
        try await terminal.enter("echo:two")
        #expect(try await terminal.enter("/retry").contains("Answer 2 of 2 (/alt lists them; /alt 1 goes back)."))
        let chats = repl.fixture.requests(to: "/api/v1/chat")
        #expect(chats.count == 3)
        #expect(chats[2].field("input") == "echo:two")
        #expect(
            chats[2].field("previous_response_id") == chats[1].field("previous_response_id"),
            "regenerate continues from the answer before, not from the replaced one")

        let listed = try await terminal.enter("/alt")
        #expect(listed.contains("  1. two"), "\(listed)")
        #expect(listed.contains("  2. two  (current)"), "\(listed)")
        let chosen = try await terminal.enter("/alt 1")
        #expect(chosen.contains("Alternative 1 of 2"), "\(chosen)")
        #expect(try await terminal.enter("/alt").contains("  1. two  (current)"))
        let library = try LibraryStore(path: repl.sandbox.libraryPath)
        let conversation = try #require(try library.conversations().first)
        #expect(
            try library.messages(conversationId: conversation.id).map(\.text) == ["echo:one", "one", "echo:two", "two"])
        #expect(try library.messages(conversationId: conversation.id).last?.responseId == conversation.lastResponseId)
    }

    @Test func editResendsTheLastMessageChanged() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:one")
        try await terminal.enter("echo:two")
        let start = terminal.mark
        terminal.send("/edit\r")
        try await terminal.waitFor("/edit echo:two", after: start + 6)
        terminal.send(String(repeating: "\u{7F}", count: 3))
        let shown = try await terminal.enter("deux")
        #expect(shown.contains("deux"), "\(shown)")
        #expect(
            shown.contains("Message version 2 of 2 (/alt message lists them; /alt message 1 goes back)."), "\(shown)")
        let chats = repl.fixture.requests(to: "/api/v1/chat")
        #expect(chats.last?.field("input") == "echo:deux")
        #expect(chats.last?.field("previous_response_id") == chats[1].field("previous_response_id"))
        let versions = try await terminal.enter("/alt message")
        #expect(versions.contains("  1. echo:two"), "\(versions)")
        #expect(versions.contains("  2. echo:deux  (current)"), "\(versions)")
        try await terminal.enter("/alt message 1")
        #expect(try await terminal.enter("/alt").contains("has no alternatives"), "the original turn's answer is back")
    }

    @Test func aFailedFirstMessageGoesBackIntoTheLineAndLeavesNoChat() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let start = terminal.mark
        terminal.send("[[sim:status=500]] keep me\r")
        let failure = try await terminal.waitFor("Simulated failure", after: start)
        let failureEnd =
            start
            + failure.distance(
                from: failure.startIndex, to: try #require(failure.range(of: "Simulated failure")).upperBound)
        // Looked for after the failure, so the echo of the typed line cannot satisfy it.
        try await terminal.waitFor("› [[sim:status=500]] keep me", after: failureEnd)
        let library = try LibraryStore(path: repl.sandbox.libraryPath)
        #expect(try library.conversations().isEmpty)
    }

    /// A message escaped with a second slash comes back escaped: Enter sends it again rather than run it as a command.
    @Test func aFailedMessageThatStartsWithASlashComesBackEscaped() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        let start = terminal.mark
        terminal.send("//new [[sim:status=500]] ideas\r")
        let failure = try await terminal.waitPast("Simulated failure", after: start)
        let back = try await terminal.waitPast("› //new [[sim:status=500]] ideas", after: failure)
        terminal.send("\r")
        try await terminal.waitFor("Simulated failure", after: back)
        let inputs = repl.fixture.requests(to: "/api/v1/chat").map { $0.field("input") }
        #expect(inputs == ["/new [[sim:status=500]] ideas", "/new [[sim:status=500]] ideas"], "\(inputs)")
        #expect(try LibraryStore(path: repl.sandbox.libraryPath).conversations().isEmpty, "/new did not run")
    }

    /// The library keeps a draft as the message it sends, which the editors show as it stands: a refused escaped
    /// message is kept with one slash, and comes back to the line escaped again.
    @Test func aRefusedEscapedMessageIsKeptAsTheMessageItSends() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:first chat")
        let start = terminal.mark
        terminal.send("//new [[sim:status=500]] ideas\r")
        let failure = try await terminal.waitPast("Simulated failure", after: start)
        try await terminal.waitPast("› //new [[sim:status=500]] ideas", after: failure)
        #expect(try repl.firstDraft() == "/new [[sim:status=500]] ideas")
        // A command typed after the draft runs and keeps it (Ctrl-U first would clear it).
        terminal.send(" /new\r")
        let opened = terminal.mark
        terminal.send("/open echo:first chat\r")
        try await terminal.waitFor("› //new [[sim:status=500]] ideas", after: opened + 20)
    }

    /// A draft an editor kept that starts with a slash comes to the line escaped: Enter sends it as the message.
    @Test func anEditorsDraftStartingWithASlashIsSentAsAMessage() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:first chat")
        try await terminal.enter("/new")
        let library = try LibraryStore(path: repl.sandbox.libraryPath)
        let conversation = try #require(try library.conversations().first { $0.title == "echo:first chat" })
        try library.setDraft(conversationId: conversation.id, text: "/etc/hosts maps names")
        let start = terminal.mark
        terminal.send("/open echo:first chat\r")
        try await terminal.waitFor("› //etc/hosts maps names", after: start + 20)
        let sent = terminal.mark
        terminal.send("\r")
        try await terminal.waitFor(" tok/s", after: sent)
        let inputs = repl.fixture.requests(to: "/api/v1/chat").map { $0.field("input") }
        #expect(inputs == ["echo:first chat", "/etc/hosts maps names"], "\(inputs)")
    }

    /// `/retry` and `/edit` act on the last message as this REPL last showed it: one another process sent since is not
    /// asked again or replaced. The refusal says why, the edit comes back to the line, and at the next prompt the
    /// REPL acts on the message that is last.
    @Test func aRetryOrEditAfterAnotherProcessSentIsRefused() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:one")
        let id = try #require(try LibraryStore(path: repl.sandbox.libraryPath).conversations().first?.id)
        #expect(try await repl.runBounded(["ask", "--chat", id, "echo:two from elsewhere"]).status == 0)
        let retried = try await terminal.enter("/retry")
        let flat = retried.replacingOccurrences(of: "\n", with: " ")
        #expect(flat.contains("another client sent to it"), "\(retried)")
        #expect(flat.contains("The last message now: echo:two from elsewhere"), "it says which: \(retried)")
        #expect(try await repl.runBounded(["ask", "--chat", id, "echo:three from elsewhere"]).status == 0)
        let start = terminal.mark
        terminal.send("/edit echo:two edited\r")
        try await terminal.waitFor("› /edit echo:two edited", after: start + 20)
        let inputs = repl.fixture.requests(to: "/api/v1/chat").map { $0.field("input") }
        #expect(inputs == ["echo:one", "echo:two from elsewhere", "echo:three from elsewhere"], "\(inputs)")
        let retrying = terminal.mark
        terminal.send("\u{15}/retry\r")
        try await terminal.waitFor(" tok/s", after: retrying)
        #expect(repl.fixture.requests(to: "/api/v1/chat").count == 4, "the next prompt's /retry asks the last again")
    }

    @Test func aChatMadeWithNewOutlivesAFailedFirstMessage() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("/new Kept on purpose")
        let start = terminal.mark
        terminal.send("[[sim:status=500]] fails\r")
        try await terminal.waitFor("Simulated failure", after: start)
        let library = try LibraryStore(path: repl.sandbox.libraryPath)
        #expect(try library.conversations().map(\.title) == ["Kept on purpose"])
    }
}
