import Chat
import Foundation
import HTTP
import Markdown
import TerminalMarkdown

extension ReplCommands {
    /// `/file`, `/url`, `/run`, `/context`: add files, pages and command output to the next message, list and drop them.
    static let contextCommands: [SlashCommand] = [
        SlashCommand(
            "file", "PATH…", "Add files, a directory's text files or a glob's matches to the next message as context.",
            argument: .path
        ) { arguments, repl in
            guard !arguments.positionals.isEmpty else { throw UsageError("name a file, directory or pattern") }
            var items: [ContextItem] = []
            for path in arguments.positionals {
                let reading: ContextReader.Reading
                do { reading = try repl.chat.readContext(path) } catch { throw UsageError("\(error)") }
                items += reading.items
                for skipped in reading.skipped {
                    repl.output.line("Skipped \(skipped.description)")
                }
            }
            try add(items, repl: repl)
        },
        SlashCommand(
            "url", "URL",
            "Fetch a web page (text, HTML as readable text, JSON) and add it to the next message as context."
        ) { arguments, repl in
            guard arguments.positionals.count == 1 else { throw UsageError("give one http:// or https:// URL") }
            let item: ContextItem
            do { item = try await repl.chat.fetchContext(arguments.positionals[0], transport: CurlTransport()) } catch {
                throw UsageError("\(error)")
            }
            try add([item], repl: repl)
        },
        SlashCommand(
            "run", "COMMAND", "Run a shell command and add its output and exit status to the next message as context.",
            takesText: true
        ) { arguments, repl in
            guard let command = arguments.positionals.first, !command.trimmingCharacters(in: .whitespaces).isEmpty
            else {
                throw UsageError("give a command, e.g. /run git diff")
            }
            let chat = repl.chat
            let item: ContextItem
            do {
                // Ctrl-C, SIGTERM and SIGHUP stop the command (and everything it started) and bring the prompt back.
                item = try await repl.router.interrupting(Task { try await chat.runContext(command) })
            } catch let error as ContextError {
                switch error {
                case .commandStopped, .commandTimedOut: throw error
                default: throw UsageError("\(error)")
                }
            }
            try add([item], repl: repl)
        },
        SlashCommand(
            "context", "[drop N | clear]",
            "List the context items and images waiting for the next message, drop item N, or clear them.",
            argument: .choices(["drop", "clear"])
        ) { arguments, repl in
            let words = arguments.positionals
            switch words.first {
            case nil:
                guard !repl.pendingContext.isEmpty || !repl.attachments.isEmpty else {
                    repl.output.line(
                        "No context items wait for the next message (/file, /url, /run and /attach add them).")
                    return
                }
                repl.output.line(SanitizedMessage(untrusted: chips(repl).joined(separator: "\n")))
            case "clear":
                repl.pendingContext = []
                repl.attachments = []
                repl.output.line("Context items cleared.")
            case "drop":
                let count = repl.pendingContext.count
                guard words.count == 2, let number = Int(words[1]),
                    (1...max(count + repl.attachments.count, 1)).contains(number),
                    count + repl.attachments.count > 0
                else {
                    throw UsageError("give the number of an item /context lists")
                }
                let dropped =
                    number <= count
                    ? repl.pendingContext.remove(at: number - 1).name
                    : repl.attachments.remove(at: number - count - 1).name
                repl.output.line("Dropped \(UntrustedText.oneLine(dropped)).")
            default:
                throw UsageError("say /context, /context drop N or /context clear")
            }
        }
    ]

    /// Adds `items` to the next message (refusing all of them when together they pass the message limit) and shows a chip for each.
    @ReplActor private static func add(_ items: [ContextItem], repl: ReplSession) throws {
        let all = repl.pendingContext + items
        do { try repl.chat.contextLimits.check(all) } catch { throw UsageError("\(error)") }
        repl.pendingContext = all
        let first = all.count - items.count
        repl.output.line(
            "\(chips(repl)[first..<all.count].joined(separator: "\n"))\n\(items.count == 1 ? "It goes" : "They go")"
                + " with your next message (/context lists what waits).")
    }

    /// `  1. notes.md · 3.2 KB · ~800 tokens` for each item, then `  2. red.png · image · 1.2 KB` for each image, numbered
    /// as `/context drop N` takes them, sanitised.
    @ReplActor static func chips(_ repl: ReplSession) -> [String] {
        (repl.pendingContext.map(\.chip)
            + repl.attachments.map { "\($0.name) · image · \(ContextItem.size($0.bytes.count))" })
            .enumerated().map { "  \($0.offset + 1). " + UntrustedText.oneLine($0.element) }
    }
}
