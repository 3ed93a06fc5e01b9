import Chat
import Foundation
import LMStudio
import Library
import SystemSupport
import TerminalMarkdown

/// `/show` and the long listings (`/help`): text in `$PAGER` (default `less -R`), printed when there is no pager.
@ReplActor enum Pager {
    /// Shows the transcript (with reasoning or tool details), or message number N of `words`.
    static func show(_ words: [String], repl: ReplSession) async throws {
        guard let conversation = await repl.currentConversation() else {
            repl.output.line("Nothing to show yet.")
            return
        }
        let reasoning = words.contains("reasoning")
        let tools = words.contains("tools")
        let index = try words.first { !["reasoning", "tools"].contains($0) }.map { word -> Int in
            guard let number = Int(word), number > 0 else {
                throw UsageError("say a message number, reasoning or tools")
            }
            return number
        }
        let id = conversation.id
        let markdown: String = try await repl.chat.withLibrary { library in
            if let index {
                let messages = try library.messages(conversationId: id)
                guard index <= messages.count else {
                    throw UsageError("this conversation has \(messages.count) messages")
                }
                let message = messages[index - 1]
                return (reasoning && !message.reasoning.isEmpty ? message.reasoning + "\n\n---\n\n" : "") + message.text
            }
            return try Transcript.markdown(of: conversation, library: library, reasoning: reasoning, tools: tools)
        }
        let capabilities = repl.context.terminal(fd: 1)
        let rendered = MarkdownRenderer(
            capabilities: capabilities, mode: MarkdownMode(rawValue: repl.context.markdownMode) ?? .auto
        ).render(markdown)
        try await page(rendered, repl: repl, title: index.map { "llmster message \($0)" } ?? "llmster transcript")
    }

    /// Shows `text` in `$PAGER` (default `less -R`), or prints it: on a line-mode front end (Emacs comint,
    /// `TERM=dumb`), which has its own scrolling and where a pager would wait for keys; when the pager fails; and,
    /// with `whenTaller`, when `text` fits the screen (the prompt's two rows kept) and paging would only hide it.
    /// The pager is given a file named `title` in a directory of this process's, run from there, so the name a pager
    /// shows (less's first status line) is the title, not a temporary path.
    static func page(_ text: String, repl: ReplSession, title: String, whenTaller: Bool = false) async throws {
        let capabilities = repl.context.terminal(fd: 1)
        let pager = repl.context.environment["PAGER"].flatMap { $0.isEmpty ? nil : $0 } ?? "less -R"
        let rows = text.split(separator: "\n", omittingEmptySubsequences: false).count
        guard capabilities.allowsCursorMovement, !whenTaller || rows > capabilities.height - 2 else {
            repl.output.send(laidOut: text)
            return
        }
        let directory = NSTemporaryDirectory() + "llmster-page-\(getpid())"
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try AtomicFile.write(Array(text.utf8), to: directory + "/" + title, permissions: 0o600)
        // The pager reads the terminal itself: what is pasted into it comes without the marks a command has on.
        repl.editor?.setPasteMarking(false)
        defer { repl.editor?.setPasteMarking(true) }
        // The REPL's actor waits, not a thread of the cooperative pool, for as long as the pager is open.
        let status = await BlockingThread.run("llmster-pager") {
            ExternalProgram.runShell("cd \"$1\" && \(pager) \"$2\"", arguments: [directory, title])
        }
        if status != 0 { repl.output.send(laidOut: text) }
    }
}
