import Chat
import Foundation
import LMStudio
import Library
import Markdown
import TerminalMarkdown

/// `llmster chats`, `show` and `search`: reading the library from the command line.
enum LibraryCommands {
    static let chats = Command(
        "chats",
        summary: "List conversations, pinned first, then the most recently updated; a fork says where it came from.",
        options: [
            .init([.folder], value: "F", help: "only conversations in folder F and its sub-folders (e.g. Work)"),
            .init([.pinned], help: "only pinned conversations"),
            .init([.limit], value: "N", help: "at most N conversations (default 50)"),
            .init([.json], help: "print JSON for scripts")
        ]
    ) { arguments, context in
        let limit = try arguments.positiveInteger(.limit) ?? 50
        let listing: ConversationListing
        do {
            listing = try await context.librarySession().listConversations(
                folder: arguments.value(.folder),
                pinnedOnly: arguments.has(.pinned), limit: limit)
        } catch ChatError.storage(.notFound(kind: "folder", let path)) {
            context.warn("there is no folder '\(path)'; `llmster chats` lists conversations in every folder")
            return ExitCode.notFound
        }
        let conversations = listing.conversations
        func folderPath(_ conversation: Conversation) -> String { listing.folderPath(of: conversation) }
        if arguments.has(.json) {
            let objects: [JSONValue] = conversations.map { conversation in
                .object([
                    "id": .string(conversation.id), "title": .string(conversation.title),
                    "display_title": .string(conversation.displayTitle),
                    "folder": conversation.folderId == nil ? .null : .string(folderPath(conversation)),
                    "pinned": .bool(conversation.pinned), "model": conversation.modelKey.map(JSONValue.string) ?? .null,
                    "created_at": .string(ISO8601DateFormatter().string(from: conversation.createdAt)),
                    "updated_at": .string(ISO8601DateFormatter().string(from: conversation.updatedAt)),
                    "has_draft": .bool(!conversation.draft.isEmpty),
                    "forked_from": listing.forkOrigins[conversation.id].map { origin in
                        .object([
                            "id": .string(origin.sourceId), "title": .string(origin.sourceTitle),
                            "reply": .number(Double(origin.replyNumber))
                        ])
                    } ?? .null
                ])
            }
            context.output.json(.array(objects))
            return ExitCode.success
        }
        guard !conversations.isEmpty else {
            context.errors.line(SanitizedMessage(untrusted: listing.emptyNotice))
            return ExitCode.success
        }
        context.output.send(
            laidOut:
                listing.text(
                    width: TextLayout.outputWidth(environment: context.environment),
                    fit: context.terminal(fd: 1).textFit))
        return ExitCode.success
    }

    static let show = Command(
        "show", arguments: "CHAT",
        summary: "Print a conversation's transcript (CHAT: an id, an id prefix or a title).",
        options: [
            .init([.reasoning], help: "include each reply's full reasoning"),
            .init([.tools], help: "include each tool call's arguments and output"),
            .init([.alternatives], help: "include replaced answers and earlier versions of edited messages")
        ]
    ) { arguments, context in
        guard arguments.positionals.count == 1 else { throw UsageError("name one conversation") }
        let session = try context.librarySession()
        let conversation = try await session.resolveConversation(arguments.positionals[0])
        let (reasoning, tools, alternatives) = (
            arguments.has(.reasoning), arguments.has(.tools), arguments.has(.alternatives)
        )
        let transcript = try await session.withLibrary { library in
            try Transcript.markdown(
                of: conversation, library: library, reasoning: reasoning, tools: tools, alternatives: alternatives)
        }
        ReplyDisplay.printDocument(transcript, context: context)
        return ExitCode.success
    }

    static let search = Command(
        "search", arguments: "TEXT…", summary: "Full-text search over titles and messages.",
        options: [
            .init([.limit], value: "N", help: "at most N hits (default 20)"),
            .init([.json], help: "print JSON for scripts")
        ]
    ) { arguments, context in
        let text = arguments.positionals.joined(separator: " ")
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw UsageError("give the text to search for")
        }
        let limit = try arguments.positiveInteger(.limit) ?? 20
        let hits = try context.openLibrary().search(
            text, limit: limit, highlight: arguments.has(.json) ? ("[", "]") : SearchListing.highlight)
        if arguments.has(.json) {
            let objects: [JSONValue] = hits.map { hit in
                .object([
                    "conversation_id": .string(hit.conversationId),
                    "message_id": hit.messageId.map(JSONValue.string) ?? .null,
                    "title": .string(hit.title), "snippet": .string(hit.snippet)
                ])
            }
            context.output.json(.array(objects))
            return ExitCode.success
        }
        guard !hits.isEmpty else {
            context.errors.line("Nothing matches '\(text)'.")
            return ExitCode.success
        }
        context.output.send(
            laidOut:
                SearchListing.table(
                    hits, width: TextLayout.outputWidth(environment: context.environment),
                    fit: context.terminal(fd: 1).textFit))
        return ExitCode.success
    }

    /// `2026-11-29 22:04` in local time.
    static func dateLabel(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }
}

/// A conversation as one Markdown document, for `show` and the pager.
///
/// The current branch, with "(2 of 3)" on a message that has alternatives; `alternatives` adds the other ones
/// after it.
enum Transcript {
    /// The `model_load_time_seconds` the server reported for a reply, when it loaded the model for it.
    static func modelLoadTime(_ message: Message) -> Double? {
        guard let json = message.statsJSON else { return nil }
        return (try? JSONDecoder().decode(ChatStats.self, from: Data(json.utf8)))?.modelLoadTimeSeconds
    }

    /// What follows a message no reply followed (`Message.unansweredIds(in:)`), as `⚠ incomplete` follows a cut reply.
    static let unansweredMark = "**⚠ not answered** — the send failed or stopped before a reply"

    static func markdown(
        of conversation: Conversation, library: LibraryStore, reasoning: Bool, tools: Bool,
        alternatives: Bool = false
    ) throws -> String {
        var parts = ["# \(conversation.displayTitle)"]
        var meta: [String] = []
        if let model = conversation.modelKey { meta.append("model `\(model)`") }
        meta.append("id `\(conversation.id)`")
        if let profile = conversation.serverProfile { meta.append("server profile `\(profile)`") }
        if let origin = try library.forkOrigin(of: conversation.id) {
            meta.append(
                "forked from \(origin.sourceTitle.isEmpty ? origin.sourceId : origin.sourceTitle) at reply \(origin.replyNumber)"
            )
        }
        parts.append(meta.joined(separator: " · "))
        if let system = conversation.systemPrompt, !system.isEmpty { parts.append("> **System:** " + system) }
        let branch = try library.messages(conversationId: conversation.id)
        let unanswered = Message.unansweredIds(in: branch)
        for message in branch {
            let siblings = try library.alternatives(messageId: message.id)
            let number = (siblings.firstIndex { $0.id == message.id } ?? 0) + 1
            let count = siblings.count > 1 ? " (\(number) of \(siblings.count))" : ""
            switch message.role {
            case .user: parts.append("## You" + count)
            case .assistant:
                parts.append("## " + (message.modelInstanceId ?? conversation.modelKey ?? "Assistant") + count)
            case .system: break
            }
            parts += try body(of: message, siblings: siblings, library: library, reasoning: reasoning, tools: tools)
            if unanswered.contains(message.id) { parts.append(unansweredMark) }
            if alternatives {
                for (index, other) in siblings.enumerated() where other.id != message.id {
                    parts.append("### Alternative \(index + 1) of \(siblings.count)")
                    // The same parts as the shown one: a rewritten reply's streamed version keeps its own reasoning.
                    let shown = try body(
                        of: other, siblings: siblings, library: library, reasoning: reasoning, tools: tools
                    )
                    .filter { !$0.isEmpty }
                    parts += shown.isEmpty ? ["*(no text)*"] : shown
                }
            }
        }
        return parts.joined(separator: "\n\n") + "\n"
    }

    /// A message's parts under its heading: a user message's text and attachments; a reply's reasoning (with
    /// `reasoning`), text and tool calls (their output with `tools`) in the server's order, then its marks.
    private static func body(
        of message: Message, siblings: [Message], library: LibraryStore, reasoning: Bool,
        tools: Bool
    ) throws -> [String] {
        var parts: [String] = []
        switch message.role {
        case .user:
            parts.append(message.text)
            let attachments = try library.attachments(messageId: message.id)
            if !attachments.isEmpty {
                parts.append(
                    attachments.map { attachment in
                        ContextItem(attachment: attachment).map { "📎 " + $0.chip }
                            ?? "📎 \(attachment.name) (\(attachment.mimeType), \(Units.bytes(Int64(attachment.bytes.count))))"
                    }.joined(separator: "\n"))
            }
        case .assistant:
            let timeline = message.timeline(toolCalls: try library.toolCalls(messageId: message.id))
            let label = ReplyPresenter.reasoningLabel(seconds: message.reasoningPartSeconds(in: timeline))
            for part in timeline {
                switch part {
                case .reasoning(let thought):
                    guard reasoning else { continue }
                    parts.append(
                        "**\(label)**\n\n"
                            + thought.split(separator: "\n", omittingEmptySubsequences: false)
                            .map { "> " + $0 }.joined(separator: "\n"))
                case .text(let said):
                    let trimmed = String(said.reversed().drop(while: \.isNewline).reversed())
                    if !trimmed.isEmpty { parts.append(trimmed) }
                case .toolCall(let call):
                    var line = "⚙ `\(call.name)` \(call.argumentsJSON)"
                    switch call.status {
                    case .succeeded: line += " ✓ " + Units.bytes(Int64(call.output?.utf8.count ?? 0))
                    case .failed: line += " ✗ " + (call.failureReason ?? "failed")
                    case .running: line += " … (did not finish)"
                    }
                    parts.append(line)
                    if tools, let output = call.output {
                        parts.append("```\n" + output + "\n```")
                    }
                }
            }
            if message.text.isEmpty { parts.append("*(no answer text)*") }
            if message.isRewritten {
                let kept =
                    message.streamedVersionId.flatMap { id in siblings.firstIndex { $0.id == id } }
                    .map {
                        "; the streamed version is kept as alternative \($0 + 1) of \(siblings.count) (`--alternatives` shows it)"
                    } ?? ""
                parts.append("*(rewritten: the server's final text replaced what streamed\(kept))*")
            }
            if let load = Self.modelLoadTime(message) {
                parts.append(
                    "*(the server loaded the model for this reply in \(String(format: "%.1f s", (load * 10).rounded() / 10)))*"
                )
            }
            switch message.status {
            case .incomplete: parts.append("**⚠ incomplete**" + (message.error.map { " — " + $0 } ?? ""))
            case .error: parts.append("**⚠ error**" + (message.error.map { " — " + $0 } ?? ""))
            case .streaming: parts.append("**… still streaming in another llmster**")
            case .complete: break
            }
        case .system:
            parts.append("> **System:** " + message.text)
        }
        return parts
    }
}

extension ConversationListing {
    /// `Work` or `Work and its sub-folders (Work/Clients, …)` when a folder was asked for; nil for every folder.
    var scope: String? {
        includedFolders.first.map { folder in
            let below = includedFolders.dropFirst()
            return below.isEmpty ? folder : "\(folder) and its sub-folders (\(below.joined(separator: ", ")))"
        }
    }

    /// What `chats` and `/chats` say when the listing is empty.
    var emptyNotice: String {
        UntrustedText.oneLine(
            scope.map { "No conversations in \($0)." }
                ?? "No conversations yet. `llmster ask PROMPT` or `llmster` starts one.")
    }

    /// The listing as `chats` and `/chats` show it: `In SCOPE:` when a folder was asked for, then a table laid out to
    /// `width` (nil: whole lines); a narrow terminal cuts the title, then drops MODEL, then FOLDER.
    func text(width: Int?, fit: TextFit) -> String {
        var text = ""
        if let scope {
            let heading = UntrustedText.oneLine("In \(scope):")
            text = (width.map { TextLayout.paragraphs(heading, width: $0, fit: fit) } ?? heading) + "\n"
        }
        var table = TextTable(columns: [
            .init("ID", priority: 0), .init("TITLE", minimumWidth: 12, priority: 1),
            .init("FOLDER", minimumWidth: 8, priority: 3),
            .init("MODEL", minimumWidth: 10, priority: 4), .init("UPDATED", priority: 2)
        ])
        for conversation in conversations {
            table.append([
                String(conversation.id.prefix(8)), (conversation.pinned ? "📌 " : "") + markedTitle(conversation),
                folderPath(of: conversation), conversation.modelKey ?? "-",
                LibraryCommands.dateLabel(conversation.updatedAt)
            ])
        }
        return text + table.text(width: width, fit: fit)
    }

    /// The title with ` (fork of SOURCE at reply N)` after a fork's; the default title's own ` (fork)` is left out
    /// there, as the mark says it.
    func markedTitle(_ conversation: Conversation) -> String {
        guard let origin = forkOrigins[conversation.id] else { return conversation.displayTitle }
        let source = origin.sourceTitle.isEmpty ? String(origin.sourceId.prefix(8)) : origin.sourceTitle
        let title =
            conversation.title == origin.sourceTitle + " (fork)" ? origin.sourceTitle : conversation.displayTitle
        return title + " (fork of \(source) at reply \(origin.replyNumber))"
    }
}
