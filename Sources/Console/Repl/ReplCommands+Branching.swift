import Chat
import Foundation
import Library
import Markdown
import TerminalMarkdown

extension ReplCommands {
    /// `/retry`, `/edit`, `/fork`, `/alt`: regenerate the last reply, edit the last message, branch from a reply into
    /// a new conversation, choose among alternatives.
    static let branchingCommands: [SlashCommand] = [
        SlashCommand(
            "retry", "", "Ask for a new answer to your last message; the old one stays as an alternative (/alt)."
        ) { _, repl in
            guard let id = repl.conversationId else {
                throw UsageError("there is nothing to retry yet", showsUsage: false)
            }
            let before = await alternativeCount(of: nil, in: id, repl: repl)
            var retry = TurnSubmission.retry()
            retry.lastMessageId = repl.shownLastMessageId
            repl.exitStatus = await repl.submit(retry)
            await announceAlternative(of: nil, in: id, subject: "Answer", after: before, repl: repl)
        },
        SlashCommand(
            "edit", "[TEXT]", "Edit your last message and send it again (without TEXT: put it in the line to edit).",
            takesText: true
        ) { arguments, repl in
            guard let id = repl.conversationId, let last = try await repl.chat.lastUserMessage(in: id) else {
                throw UsageError("there is no message to edit yet", showsUsage: false)
            }
            guard let text = arguments.positionals.first, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
            else {
                repl.draft = "/edit " + last.text
                return
            }
            // A failed edit leaves the original current, and the edit back in the line.
            let before = await alternativeCount(of: last.id, in: id, repl: repl)
            var edit = TurnSubmission.edit(text)
            edit.lastMessageId = repl.shownLastMessageId
            repl.exitStatus = await repl.submit(edit)
            await announceAlternative(
                of: try await repl.chat.lastUserMessage(in: id)?.id, in: id, subject: "Message version",
                after: before, repl: repl)
        },
        SlashCommand(
            "fork", "[N]", "Start a new conversation from reply N of this one (default: the last) and switch to it."
        ) { arguments, repl in
            guard let id = repl.conversationId else {
                throw UsageError("there is no reply to fork from yet", showsUsage: false)
            }
            guard arguments.positionals.count <= 1 else { throw UsageError("give at most one reply number") }
            let number = try arguments.positionals.first.map { word -> Int in
                guard let number = Int(word), number > 0 else {
                    throw UsageError("say a reply number, counting from 1")
                }
                return number
            }
            let original = await repl.currentConversation()?.title ?? ""
            let fork = try await repl.chat.fork(id, atReply: number, title: nil)
            await repl.switchTo(fork.id)
            let origin = try await repl.chat.withLibrary { try $0.forkOrigin(of: fork.id) }
            repl.output.line(
                "Forked at reply \(origin?.replyNumber ?? number ?? 0) as \(UntrustedText.oneLine(fork.title)); "
                    + "\(UntrustedText.oneLine(original.isEmpty ? "the original" : original)) is unchanged (/open it to go back)."
            )
        },
        SlashCommand(
            "alt", "[message] [N]",
            "List the alternatives of the last reply (or versions of your last message), or make N current.",
            argument: .choices(["message"])
        ) { arguments, repl in
            guard let id = repl.conversationId else { throw UsageError("there is no reply yet", showsUsage: false) }
            var words = arguments.positionals
            let ofMessage = words.first == "message"
            if ofMessage { words.removeFirst() }
            let messageId = ofMessage ? try await repl.chat.lastUserMessage(in: id)?.id : nil
            if ofMessage, messageId == nil { throw UsageError("there is no message yet", showsUsage: false) }
            let alternatives = try await repl.chat.alternatives(in: id, messageId: messageId)
            guard let number = words.first else {
                repl.output.send(
                    laidOut:
                        listing(alternatives, of: ofMessage ? "Your last message" : "The last reply", fit: repl.textFit)
                )
                return
            }
            guard let index = Int(number), alternatives.indices.contains(index - 1) else {
                throw UsageError("say a number from 1 to \(alternatives.count)")
            }
            let branch = try await repl.chat.chooseAlternative(alternatives[index - 1].id)
            guard let chosen = branch.last else { return }
            let capabilities = repl.context.terminal(fd: 1)
            let mode = MarkdownMode(rawValue: repl.context.markdownMode) ?? .auto
            repl.output.line("Alternative \(index) of \(alternatives.count):")
            repl.output.send(laidOut: MarkdownRenderer(capabilities: capabilities, mode: mode).render(chosen.text))
        }
    ]

    /// One line per alternative: its number, the start of its text, and `(current)` for the one shown.
    static func listing(_ alternatives: [Message], of subject: String, fit: TextFit) -> String {
        guard alternatives.count > 1 else { return "\(subject) has no alternatives; /retry and /edit make them.\n" }
        return alternatives.enumerated().map { index, message in
            // As the reader saw it: `**bold**` and list markers would read as emphasis and structure here.
            let preview = fit.cut(UntrustedText.sanitize(PlainText.firstLine(of: message.text)), to: 70)
            let status = message.status == .complete ? "" : " [\(message.status.rawValue)]"
            return "  \(index + 1). \(preview)\(status)\(message.onBranch ? "  (current)" : "")\n"
        }.joined()
    }

    /// After `/retry` or `/edit`: `Answer 2 of 2 (/alt 1 goes back).`, when there is more than one.
    @ReplActor private static func alternativeCount(of messageId: String?, in id: String, repl: ReplSession) async
        -> Int
    {
        (try? await repl.chat.alternatives(in: id, messageId: messageId))?.count ?? 0
    }

    /// Says which alternative is now current, when the command added one (a turn not sent adds none, and says so itself).
    @ReplActor private static func announceAlternative(
        of messageId: String?, in id: String, subject: String, after before: Int,
        repl: ReplSession
    ) async {
        guard let alternatives = try? await repl.chat.alternatives(in: id, messageId: messageId),
            alternatives.count > max(before, 1),
            let current = alternatives.firstIndex(where: \.onBranch)
        else { return }
        let other = current == 0 ? 2 : current
        let command = messageId == nil ? "/alt" : "/alt message"
        repl.output.line(
            "\(subject) \(current + 1) of \(alternatives.count) (\(command) lists them; \(command) \(other) goes back)."
        )
    }
}
