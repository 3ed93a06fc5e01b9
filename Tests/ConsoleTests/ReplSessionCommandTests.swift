import Foundation
import Library
import Simulator
import TestSupport
import Testing

/// `/save`, `/clear`, the `/model` picker and `/copy`'s clipboard programs.
@Suite struct ReplSessionCommandTests {
    @Test func saveWritesTheTranscriptOrTheLastReplyAsMarkdown() throws {
        let repl = try ReplHarness()
        let terminal = try repl.start()
        try terminal.enter("echo:The **answer** is 42.")
        let transcript = repl.sandbox.root + "/chat.md"
        let saved = try terminal.enter("/save " + transcript)
        #expect(saved.contains("Saved this conversation to"), "\(saved)")
        let text = try String(contentsOfFile: transcript, encoding: .utf8)
        #expect(
            text.contains("## You") && text.contains("echo:The **answer** is 42.")
                && text.contains("The **answer** is 42.\n"), "\(text)")
        let reply = repl.sandbox.root + "/reply.md"
        try terminal.enter("/save --last " + reply)
        #expect(try String(contentsOfFile: reply, encoding: .utf8) == "The **answer** is 42.\n")
        let start = terminal.mark
        terminal.send("/save --last " + transcript + "\r")
        try terminal.waitFor("exists; replace it? [y/N]", after: start)
        try terminal.enter("y")
        #expect(try String(contentsOfFile: transcript, encoding: .utf8) == "The **answer** is 42.\n")
        let help = try terminal.enter("/help save")
        #expect(help.contains("llmster show CHAT > FILE"), "\(help)")
    }

    @Test func saveWritesExactlyWhatShowPrintsToAPipeForAReplyFullOfEscapes() throws {
        let repl = try ReplHarness()
        let terminal = try repl.start()
        try terminal.enter("echo:hostile [[sim:escape]]")
        let saved = repl.sandbox.root + "/chat.md"
        try terminal.enter("/save " + saved)
        let file = try Data(contentsOf: URL(fileURLWithPath: saved))
        let id = try #require(try LibraryStore(path: repl.sandbox.libraryPath).conversations().first?.id)
        let shown = try repl.runBounded(["show", id])
        #expect(shown.status == 0, "\(shown)")
        #expect(
            file == Data(shown.output.utf8), "/save:\n\(String(decoding: file, as: UTF8.self))\nshow:\n\(shown.output)")
        for raw in ["\u{1B}", "\u{9B}", "\u{07}"] {
            #expect(
                file.range(of: Data(raw.utf8)) == nil,
                "the saved file holds a raw U+\(String(raw.unicodeScalars.first!.value, radix: 16))")
        }
        #expect(String(decoding: file, as: UTF8.self).contains("␛[2J"), "the escapes are there, made visible")
    }

    @Test func clearStartsANewChatWithTheSameModelPromptAndSettings() throws {
        let repl = try ReplHarness()
        let terminal = try repl.start()
        try terminal.enter("/model acme/thinker-8b")
        try terminal.enter("/set temperature 0.3")
        try terminal.enter("/system Answer in one word.")
        try terminal.enter("echo:first")
        let cleared = try terminal.enter("/clear")
        #expect(
            cleared.contains("acme/thinker-8b (loaded)") && cleared.contains("new chat"),
            "the prompt reads as at start: \(cleared)")
        let settings = try terminal.enter("/set")
        #expect(settings.contains("temperature") && settings.contains("0.3"), "\(settings)")
        #expect(try terminal.enter("/system").contains("Answer in one word."))
        try terminal.enter("echo:second")
        #expect(
            repl.fixture.requests(to: "/api/v1/chat").last?.field("previous_response_id") == nil,
            "the new chat has no earlier context")
        #expect(repl.fixture.requests(to: "/api/v1/chat").last?.field("model") == "acme/thinker-8b")
    }

    @Test func modelWithoutAKeyOffersANumberedListToPickOrNarrow() throws {
        let repl = try ReplHarness()
        let terminal = try repl.start()
        var start = terminal.mark
        terminal.send("/model\r")
        let list = try terminal.waitFor("Enter cancels", after: start)
        #expect(list.contains("1  acme/tiny-1b") && list.contains("(current)"), "\(list)")
        #expect(!list.contains("acme/embed-small"), "only chat models: \(list)")
        start = terminal.mark
        terminal.send("multi\r")
        let picked = try terminal.waitFor("This conversation now uses acme/multi-26b", after: start)
        #expect(!picked.contains("acme/vision-7b"), "\(picked)")
        try terminal.waitFor("(loaded) · ctx", after: start)
        start = terminal.mark
        terminal.send("/model\r")
        try terminal.waitFor("Enter cancels", after: start)
        start = terminal.mark
        terminal.send("acme\r")
        try terminal.waitFor("Enter cancels", after: start)
        terminal.send("2\r")
        try terminal.waitFor("This conversation now uses acme/thinker-8b", after: start)
    }

    /// The picker's numbers stay with their models: narrowing keeps them, and `/model N` picks the same row; a slash
    /// command typed at the picker leaves it and runs instead of narrowing the list.
    @Test func pickerNumbersAreStableAndSlashCommandsLeaveThePicker() throws {
        let repl = try ReplHarness()
        let terminal = try repl.start()
        var start = terminal.mark
        terminal.send("/model\r")
        try terminal.waitFor("Enter cancels", after: start)
        start = terminal.mark
        terminal.send("ti\r")
        let narrowed = try terminal.waitFor("Enter cancels", after: start)
        #expect(narrowed.contains("5  acme/multi-26b"), "narrowing keeps the row's number: \(narrowed)")
        #expect(!narrowed.contains("acme/thinker-8b"), "\(narrowed)")
        start = terminal.mark
        terminal.send("5\r")
        try terminal.waitFor("This conversation now uses acme/multi-26b", after: start)
        try terminal.waitFor("› ", after: start)
        #expect(try terminal.enter("/model 2").contains("This conversation now uses acme/thinker-8b"))
        #expect(try terminal.enter("/model 9").contains("there is no model 9; /model lists 1 to 5"))
        start = terminal.mark
        terminal.send("/model\r")
        try terminal.waitFor("Enter cancels", after: start)
        let left = try terminal.enter("/ps")
        #expect(left.contains("Left the model list.") && left.contains("INSTANCE"), "\(left)")
        // The filter matches the words a row shows, not only its key: "reason" finds the reasoning models.
        start = terminal.mark
        terminal.send("/model\r")
        try terminal.waitFor("Enter cancels", after: start)
        start = terminal.mark
        terminal.send("reason\r")
        let reasoning = try terminal.waitFor("Enter cancels", after: start)
        #expect(
            reasoning.contains("acme/thinker-8b") && reasoning.contains("acme/multi-26b")
                && !reasoning.contains("acme/tiny-1b"),
            "\(reasoning)")
        terminal.send("\r")
        try terminal.waitFor("› ", after: start)
        // Words that match no model are a message typed at the wrong prompt: the list is left and the message sent.
        start = terminal.mark
        terminal.send("/model\r")
        try terminal.waitFor("Enter cancels", after: start)
        start = terminal.mark
        terminal.send("echo:typed at the list\r")
        try terminal.waitFor("No model matches; left the model list, sending your message.", after: start)
        // The prompt after the reply names the conversation by the message sent.
        try terminal.waitFor("· echo:typed at the list]", after: start)
        terminal.send("\u{4}")
        #expect(try terminal.waitForExit() == 0)
        let library = try LibraryStore(path: repl.sandbox.libraryPath)
        let texts = try library.conversations().flatMap { try library.messages(conversationId: $0.id).map(\.text) }
        #expect(
            texts.contains("echo:typed at the list") && texts.contains("typed at the list"),
            "sent and answered: \(texts)")
    }

    /// `/clear` and `/new` followed by another switch, or by quitting, leave no empty untitled conversations in the
    /// library; one given a title stays.
    @Test func emptyUntitledConversationsDoNotPileUp() throws {
        let repl = try ReplHarness()
        let terminal = try repl.start()
        try terminal.enter("echo:first")
        try terminal.enter("/clear")
        try terminal.enter("/new")
        try terminal.enter("/new Named on purpose")
        try terminal.enter("/new")
        terminal.send("\u{4}")
        #expect(try terminal.waitForExit() == 0)
        let library = try LibraryStore(path: repl.sandbox.libraryPath)
        let titles = try library.conversations().map(\.title).sorted()
        #expect(titles == ["Named on purpose", "echo:first"], "\(titles)")
    }

    @Test func copyUsesAClipboardProgramAndSaysWhich() throws {
        let sandbox = try Sandbox()
        let bin = sandbox.root + "/bin"
        let clip = sandbox.root + "/clipboard"
        try sandbox.write("#!/bin/sh\ncat > \"\(clip)\"\n", to: "bin/wl-copy", permissions: 0o755)
        let path = bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let repl = try ReplHarness(environment: ["PATH": path, "WAYLAND_DISPLAY": "wayland-test"])
        let terminal = try repl.start()
        try terminal.enter("echo:Run this:\n\n```sh\nls -la\n```")
        let copied = try terminal.enter("/copy code 1")
        #expect(copied.contains("Copied 6 bytes to the clipboard with wl-copy."), "\(copied)")
        #expect(try String(contentsOfFile: clip, encoding: .utf8) == "ls -la")
    }

    @Test func withoutAClipboardProgramCopySaysItReliesOnTheTerminal() throws {
        let repl = try ReplHarness(environment: ["WAYLAND_DISPLAY": "", "DISPLAY": "", "TMUX": ""])
        let terminal = try repl.start()
        try terminal.enter("echo:text to copy")
        let copied = try terminal.enter("/copy")
        #expect(copied.contains("with OSC 52 (if the terminal allows it"), "\(copied)")
    }
}

/// The pager is given a file named for what it shows, so its status line reads "llmster help", not a temporary path.
@Suite struct ReplPagerTests {
    @Test func thePagerIsGivenTheTitleNotATemporaryPath() throws {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent(
            "llmster-test-pager-\(UUID().uuidString)"
        ).path
        try "#!/bin/sh\nprintf 'paged [%s] in %s\\n' \"$1\" \"$(basename \"$PWD\")\"\n".write(
            toFile: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: script) }
        chmod(script, 0o755)
        let repl = try ReplHarness(environment: ["PAGER": script])
        let terminal = try repl.start(height: 12)
        let help = try terminal.enter("/help")
        #expect(help.contains("paged [llmster help] in llmster-page-"), "\(help)")
        try terminal.enter("echo:something to show")
        #expect(try terminal.enter("/show").contains("paged [llmster transcript]"))
    }
}

/// `/restore` in the REPL, as `llmster restore` on the command line: what the backup holds first, then the question.
@Suite struct ReplRestoreTests {
    @Test func restoreShowsTheBackupBeforeAskingAndLandsInANewChat() throws {
        let repl = try ReplHarness()
        #expect(try repl.runBounded(["ask", "echo:kept in the backup"]).status == 0)
        let backup = repl.sandbox.root + "/library.llmster-backup"
        let made = try repl.runBounded(["backup", "-o", backup])
        #expect(made.status == 0, "\(made)")
        let terminal = try repl.start()
        try terminal.enter("echo:made after the backup")
        var start = terminal.mark
        terminal.send("/restore \(backup)\r")
        let question = try terminal.waitFor("[y/N] ", after: start)
        let preview = try #require(
            question.range(of: "conversations"), "the preview comes before the question: \(question)")
        #expect(question[preview.lowerBound...].contains("Replace the library"), "\(question)")
        let size = try #require(question.split(separator: "\n").first { $0.hasPrefix("size") }, "\(question)")
        #expect(size.contains(" KB") || size.contains(" B,"), "the size is in readable units: \(size)")
        #expect(!size.contains("bytes"), "\(size)")
        #expect(try terminal.enter("n").contains("Restore cancelled; the library is unchanged."))
        start = terminal.mark
        terminal.send("/restore \(backup)\r")
        try terminal.waitFor("[y/N] ", after: start)
        let restored = try terminal.enter("y")
        #expect(restored.contains("Restored the library") && restored.contains("new chat"), "\(restored)")
        #expect(restored.contains("new chat]"), "the prompt shows a new chat: \(restored)")
        let chats = try terminal.enter("/chats")
        #expect(chats.contains("kept in the backup") && !chats.contains("made after the backup"), "\(chats)")
    }

    /// An encrypted backup asks for its password on the terminal, which does not echo it, and restores.
    @Test func anEncryptedBackupAsksForItsPasswordWithoutEcho() throws {
        let repl = try ReplHarness()
        #expect(try repl.runBounded(["ask", "echo:kept encrypted"]).status == 0)
        try repl.sandbox.write("s3cret-words\n", to: "password")
        let backup = repl.sandbox.root + "/library.llmster-backup"
        let made = try repl.runBounded(["backup", "-o", backup, "--password-file", repl.sandbox.root + "/password"])
        #expect(made.status == 0, "\(made)")
        let terminal = try repl.start()
        try terminal.enter("echo:made after the backup")
        let start = terminal.mark
        terminal.send("/restore \(backup)\r")
        try terminal.waitFor("Password for ", after: start)
        terminal.send("s3cret-words\r")
        try terminal.waitFor("[y/N] ", after: start)
        let restored = try terminal.enter("y")
        #expect(restored.contains("Restored the library"), "\(restored)")
        #expect(!terminal.rawOutput.contains("s3cret-words"), "the password is not echoed")
        let chats = try terminal.enter("/chats")
        #expect(chats.contains("kept encrypted") && !chats.contains("made after the backup"), "\(chats)")
    }
}
