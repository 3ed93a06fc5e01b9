import Chat
import Markdown
import TerminalMarkdown

/// `llmster fork CHAT [--at N] [--title T]`: a new conversation from an earlier reply.
enum ForkCommand {
    static let command = Command(
        "fork", arguments: "CHAT",
        summary: "Start a new conversation from reply N of CHAT (default: its last), continuing from that point.",
        details: """
            The fork holds the messages up to and including reply N of the conversation's current branch and
            continues from the server context LM Studio keeps for that reply; the original is untouched.
            `llmster show` names what a fork came from. When the server no longer holds that context, the
            next message offers a fresh one, as for any lost context.
            """,
        options: [
            .init([.at], value: "N", help: "the reply to fork at, counting from 1 (default: the last)"),
            .init([.title], value: "TITLE", help: "the fork's title (default: the original's, followed by (fork))")
        ]
    ) { arguments, context in
        guard arguments.positionals.count == 1 else { throw UsageError("name one conversation") }
        let reply = try arguments.positiveInteger(.at)
        let session = try context.librarySession()
        let fork = try await session.fork(arguments.positionals[0], atReply: reply, title: arguments.value(.title))
        context.output.line(
            "Forked as \(UntrustedText.oneLine(fork.title)) (\(fork.id)); continue it: llmster ask --chat \(fork.id) …")
        return ExitCode.success
    }
}
