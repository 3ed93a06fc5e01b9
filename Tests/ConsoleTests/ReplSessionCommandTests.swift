import Foundation
import Library
import Simulator
import TestSupport
import Testing

/// `/save`, `/clear`, the `/model` picker and `/copy`'s clipboard programs.
@Suite(.spawnsProcesses) struct ReplSessionCommandTests {
    @Test func saveWritesTheTranscriptOrTheLastReplyAsMarkdown() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:The **answer** is 42.")
        let transcript = repl.sandbox.root + "/chat.md"
        let saved = try await terminal.enter("/save " + transcript)
        #expect(saved.contains("Saved this conversation to"), "\(saved)")
        let text = try String(contentsOfFile: transcript, encoding: .utf8)
        #expect(
            text.contains("## You") && text.contains("echo:The **answer** is 42.")
                && text.contains("The **answer** is 42.\n"), "\(text)")
        let reply = repl.sandbox.root + "/reply.md"
        try await terminal.enter("/save --last " + reply)
        #expect(try String(contentsOfFile: reply, encoding: .utf8) == "The **answer** is 42.\n")
        let start = terminal.mark
        terminal.send("/save --last " + transcript + "\r")
        try await terminal.waitFor("exists; replace it? [y/N]", after: start)
        try await terminal.enter("y")
        #expect(try String(contentsOfFile: transcript, encoding: .utf8) == "The **answer** is 42.\n")
        let help = try await terminal.enter("/help save")
        #expect(help.contains("llmster show CHAT > FILE"), "\(help)")
    }

    @Test func saveWritesExactlyWhatShowPrintsToAPipeForAReplyFullOfEscapes() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:hostile [[sim:escape]]")
        let saved = repl.sandbox.root + "/chat.md"
        try await terminal.enter("/save " + saved)
        let file = try Data(contentsOf: URL(fileURLWithPath: saved))
        let id = try #require(try LibraryStore(path: repl.sandbox.libraryPath).conversations().first?.id)
        let shown = try await repl.runBounded(["show", id])
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

    @Test func clearStartsANewChatWithTheSameModelPromptAndSettings() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("/model acme/thinker-8b")
        try await terminal.enter("/set temperature 0.3")
        try await terminal.enter("/system Answer in one word.")
        try await terminal.enter("echo:first")
        let cleared = try await terminal.enter("/clear")
        #expect(
            cleared.contains("acme/thinker-8b (loaded)") && cleared.contains("new chat"),
            "the prompt reads as at start: \(cleared)")
        let settings = try await terminal.enter("/set")
        #expect(settings.contains("temperature") && settings.contains("0.3"), "\(settings)")
        #expect(try await terminal.enter("/system").contains("Answer in one word."))
        try await terminal.enter("echo:second")
        #expect(
            repl.fixture.requests(to: "/api/v1/chat").last?.field("previous_response_id") == nil,
            "the new chat has no earlier context")
        #expect(repl.fixture.requests(to: "/api/v1/chat").last?.field("model") == "acme/thinker-8b")
    }

    @Test func modelWithoutAKeyOffersANumberedListToPickOrNarrow() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        var start = terminal.mark
        terminal.send("/model\r")
        let list = try await terminal.waitFor("Enter cancels", after: start)
        #expect(list.contains("1  acme/tiny-1b") && list.contains("(current)"), "\(list)")
        #expect(!list.contains("acme/embed-small"), "only chat models: \(list)")
        start = terminal.mark
        terminal.send("multi\r")
        let picked = try await terminal.waitFor("This conversation now uses acme/multi-26b", after: start)
        #expect(!picked.contains("acme/vision-7b"), "\(picked)")
        try await terminal.waitFor("(loaded) · ctx", after: start)
        start = terminal.mark
        terminal.send("/model\r")
        try await terminal.waitFor("Enter cancels", after: start)
        start = terminal.mark
        terminal.send("acme\r")
        try await terminal.waitFor("Enter cancels", after: start)
        terminal.send("2\r")
        try await terminal.waitFor("This conversation now uses acme/thinker-8b", after: start)
    }

    /// The picker's numbers stay with their models: narrowing keeps them, and `/model N` picks the same row; a slash
    /// command typed at the picker leaves it and runs instead of narrowing the list.
    @Test func pickerNumbersAreStableAndSlashCommandsLeaveThePicker() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        var start = terminal.mark
        terminal.send("/model\r")
        try await terminal.waitFor("Enter cancels", after: start)
        start = terminal.mark
        terminal.send("ti\r")
        let narrowed = try await terminal.waitFor("Enter cancels", after: start)
        #expect(narrowed.contains("5  acme/multi-26b"), "narrowing keeps the row's number: \(narrowed)")
        #expect(!narrowed.contains("acme/thinker-8b"), "\(narrowed)")
        start = terminal.mark
        terminal.send("5\r")
        try await terminal.waitFor("This conversation now uses acme/multi-26b", after: start)
        try await terminal.waitFor("› ", after: start)
        #expect(try await terminal.enter("/model 2").contains("This conversation now uses acme/thinker-8b"))
        #expect(try await terminal.enter("/model 9").contains("there is no model 9; /model lists 1 to 5"))
        start = terminal.mark
        terminal.send("/model\r")
        try await terminal.waitFor("Enter cancels", after: start)
        let left = try await terminal.enter("/ps")
        #expect(left.contains("Left the model list.") && left.contains("INSTANCE"), "\(left)")
        // The filter matches the words a row shows, not only its key: "reason" finds the reasoning models.
        start = terminal.mark
        terminal.send("/model\r")
        try await terminal.waitFor("Enter cancels", after: start)
        start = terminal.mark
        terminal.send("reason\r")
        let reasoning = try await terminal.waitFor("Enter cancels", after: start)
        #expect(
            reasoning.contains("acme/thinker-8b") && reasoning.contains("acme/multi-26b")
                && !reasoning.contains("acme/tiny-1b"),
            "\(reasoning)")
        terminal.send("\r")
        try await terminal.waitFor("› ", after: start)
        // Words that match no model are a message typed at the wrong prompt: the list is left and the message sent.
        start = terminal.mark
        terminal.send("/model\r")
        try await terminal.waitFor("Enter cancels", after: start)
        start = terminal.mark
        terminal.send("echo:typed at the list\r")
        try await terminal.waitFor("No model matches; left the model list, sending your message.", after: start)
        // The prompt after the reply names the conversation by the message sent.
        try await terminal.waitFor("· echo:typed at the list]", after: start)
        terminal.send("\u{4}")
        #expect(try await terminal.waitForExit() == 0)
        let library = try LibraryStore(path: repl.sandbox.libraryPath)
        let texts = try library.conversations().flatMap { try library.messages(conversationId: $0.id).map(\.text) }
        #expect(
            texts.contains("echo:typed at the list") && texts.contains("typed at the list"),
            "sent and answered: \(texts)")
    }

    /// `/clear` and `/new` followed by another switch, or by quitting, leave no empty untitled conversations in the
    /// library; one given a title stays.
    @Test func emptyUntitledConversationsDoNotPileUp() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start()
        try await terminal.enter("echo:first")
        try await terminal.enter("/clear")
        try await terminal.enter("/new")
        try await terminal.enter("/new Named on purpose")
        try await terminal.enter("/new")
        terminal.send("\u{4}")
        #expect(try await terminal.waitForExit() == 0)
        let library = try LibraryStore(path: repl.sandbox.libraryPath)
        let titles = try library.conversations().map(\.title).sorted()
        #expect(titles == ["Named on purpose", "echo:first"], "\(titles)")
    }

    @Test func copyUsesAClipboardProgramAndSaysWhich() async throws {
        let sandbox = try Sandbox()
        let bin = sandbox.root + "/bin"
        let clip = sandbox.root + "/clipboard"
        try sandbox.write("#!/bin/sh\ncat > \"\(clip)\"\n", to: "bin/wl-copy", permissions: 0o755)
        let path = bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let repl = try ReplHarness(environment: ["PATH": path, "WAYLAND_DISPLAY": "wayland-test"])
        let terminal = try await repl.start()
        try await terminal.enter("echo:Run this:\n\n```sh\nls -la\n```")
        let copied = try await terminal.enter("/copy code 1")
        #expect(copied.contains("Copied 6 bytes to the clipboard with wl-copy."), "\(copied)")
        #expect(try String(contentsOfFile: clip, encoding: .utf8) == "ls -la")
    }

    @Test func withoutAClipboardProgramCopySaysItReliesOnTheTerminal() async throws {
        let repl = try ReplHarness(environment: ["WAYLAND_DISPLAY": "", "DISPLAY": "", "TMUX": ""])
        let terminal = try await repl.start()
        try await terminal.enter("echo:text to copy")
        let copied = try await terminal.enter("/copy")
        #expect(copied.contains("with OSC 52 (if the terminal allows it"), "\(copied)")
    }
}

/// The pager is given a file named for what it shows, so its status line reads "llmster help", not a temporary path.
@Suite(.spawnsProcesses) struct ReplPagerTests {
    @Test func thePagerIsGivenTheTitleNotATemporaryPath() async throws {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent(
            "llmster-test-pager-\(UUID().uuidString)"
        ).path
        try "#!/bin/sh\nprintf 'paged [%s] in %s\\n' \"$1\" \"$(basename \"$PWD\")\"\n".write(
            toFile: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: script) }
        chmod(script, 0o755)
        let repl = try ReplHarness(environment: ["PAGER": script])
        let terminal = try await repl.start(height: 12)
        let help = try await terminal.enter("/help")
        #expect(help.contains("paged [llmster help] in llmster-page-"), "\(help)")
        try await terminal.enter("echo:something to show")
        #expect(try await terminal.enter("/show").contains("paged [llmster transcript]"))
    }
}

/// `/restore` in the REPL, as `llmster restore` on the command line: what the backup holds first, then the question.
@Suite(.spawnsProcesses) struct ReplRestoreTests {
    @Test func restoreShowsTheBackupBeforeAskingAndLandsInANewChat() async throws {
        let repl = try ReplHarness()
        #expect(try await repl.runBounded(["ask", "echo:kept in the backup"]).status == 0)
        let backup = repl.sandbox.root + "/library.llmster-backup"
        let made = try await repl.runBounded(["backup", "-o", backup])
        #expect(made.status == 0, "\(made)")
        let terminal = try await repl.start()
        try await terminal.enter("echo:made after the backup")
        var start = terminal.mark
        terminal.send("/restore \(backup)\r")
        let question = try await terminal.waitFor("[y/N] ", after: start)
        let preview = try #require(
            question.range(of: "conversations"), "the preview comes before the question: \(question)")
        #expect(question[preview.lowerBound...].contains("Replace the library"), "\(question)")
        let size = try #require(question.split(separator: "\n").first { $0.hasPrefix("size") }, "\(question)")
        #expect(size.contains(" KB") || size.contains(" B,"), "the size is in readable units: \(size)")
        #expect(!size.contains("bytes"), "\(size)")
        #expect(try await terminal.enter("n").contains("Restore cancelled; the library is unchanged."))
        start = terminal.mark
        terminal.send("/restore \(backup)\r")
        try await terminal.waitFor("[y/N] ", after: start)
        let restored = try await terminal.enter("y")
        #expect(restored.contains("Restored the library") && restored.contains("new chat"), "\(restored)")
        #expect(restored.contains("new chat]"), "the prompt shows a new chat: \(restored)")
        let chats = try await terminal.enter("/chats")
        #expect(chats.contains("kept in the backup") && !chats.contains("made after the backup"), "\(chats)")
    }

    /// An encrypted backup asks for its password on the terminal, which does not echo it, and restores.
    @Test func anEncryptedBackupAsksForItsPasswordWithoutEcho() async throws {
        let repl = try ReplHarness()
        #expect(try await repl.runBounded(["ask", "echo:kept encrypted"]).status == 0)
        try repl.sandbox.write("s3cret-words\n", to: "password")
        let backup = repl.sandbox.root + "/library.llmster-backup"
        let made = try await repl.runBounded([
            "backup", "-o", backup, "--password-file", repl.sandbox.root + "/password"
        ])
        #expect(made.status == 0, "\(made)")
        let terminal = try await repl.start()
        try await terminal.enter("echo:made after the backup")
        let start = terminal.mark
        terminal.send("/restore \(backup)\r")
        try await terminal.waitFor("Password for ", after: start)
        terminal.send("s3cret-words\r")
        try await terminal.waitFor("[y/N] ", after: start)
        let restored = try await terminal.enter("y")
        #expect(restored.contains("Restored the library"), "\(restored)")
        #expect(!terminal.rawOutput.contains("s3cret-words"), "the password is not echoed")
        let chats = try await terminal.enter("/chats")
        #expect(chats.contains("kept encrypted") && !chats.contains("made after the backup"), "\(chats)")
    }
}
