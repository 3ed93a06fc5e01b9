import Chat
import Foundation
import LMStudio
import Library
import Markdown
import SystemSupport
import TerminalMarkdown

/// `/copy`: the last reply or one of its code blocks to the terminal's clipboard with OSC 52.
@ReplActor enum Clipboard {
    /// Copies the last reply, or with `code N` its Nth code block.
    static func copy(_ words: [String], repl: ReplSession) async throws {
        guard let id = repl.conversationId,
            let reply = try await repl.chat.withLibrary({
                try $0.messages(conversationId: id).last { $0.role == .assistant }
            })
        else {
            repl.output.line("There is no reply to copy yet.")
            return
        }
        var text = reply.text
        if !words.isEmpty {
            guard words.count == 2, words[0] == "code", let number = Int(words[1]), number > 0 else {
                throw UsageError("say /copy, or /copy code N")
            }
            let blocks = codeBlocks(in: reply.text)
            guard number <= blocks.count else { throw UsageError("the last reply has \(blocks.count) code blocks") }
            text = blocks[number - 1]
        }
        // OSC 52 goes out to every full terminal, but none confirms it (many ignore it): a clipboard program makes
        // the copy certain. Emacs and TERM=dumb would show it as text.
        let sendsOSC52 = repl.context.terminal(fd: 1).allowsOperatingSystemCommands
        if sendsOSC52 { repl.output.send("\u{1B}]52;c;\(Data(text.utf8).base64EncodedString())\u{7}") }
        let environment = repl.context.environment
        let program = clipboardPrograms.first { name, variable, _ in
            environment[variable].map { !$0.isEmpty } == true
                && ExternalProgram.isAvailable(name, environment: environment)
        }
        let copying = text
        let copied =
            if let (name, _, arguments) = program {
                await BlockingThread.run("llmster-clipboard") {
                    ExternalProgram.feed(copying, to: name, arguments: arguments)
                }
            } else { false }
        if copied, let (name, _, _) = program {
            repl.output.line("Copied \(text.utf8.count) bytes to the clipboard with \(name).")
        } else if sendsOSC52 {
            repl.output.line(
                "Sent \(text.utf8.count) bytes to the terminal's clipboard with OSC 52 (if the terminal allows it; "
                    + "with wl-copy, xclip or tmux present the copy is certain).")
        } else {
            repl.output.line(
                "Not copied: no clipboard program (wl-copy, xclip or tmux) is available, and this terminal "
                    + "gets no OSC 52 (inside Emacs or TERM=dumb).")
        }
    }

    /// The clipboard programs tried in order: the program, the variable saying its display is there, its arguments.
    nonisolated static let clipboardPrograms: [(String, String, [String])] = [
        ("wl-copy", "WAYLAND_DISPLAY", []),
        ("xclip", "DISPLAY", ["-selection", "clipboard"]),
        ("tmux", "TMUX", ["load-buffer", "-"])
    ]

    /// The contents of the code blocks in `markdown`, in order, as the renderer finds them.
    nonisolated static func codeBlocks(in markdown: String) -> [String] { CodeBlocks.find(in: markdown) }
}
