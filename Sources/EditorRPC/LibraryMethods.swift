import Chat
import Foundation
import LMStudio
import Library
import Markdown
import SystemSupport

/// `conversations/*`, `folders/*` and `drafts/*`: the library, always through `ChatSession.withLibrary`.
///
/// A parameter naming a conversation (`id` or `conversationId`) takes what `ChatSession.resolveConversation` takes
/// (an id, a unique id prefix or a title), so an unknown one answers `not_found` with `data.candidates`.
enum LibraryMethods {
    static func register(in registry: inout MethodRegistry) {
        registerConversations(in: &registry)
        registerFolders(in: &registry)
        registry.register("drafts/get") { context, params in
            try await context.session.withConversation(try params.string("conversationId")) { conversation, _ in
                .object(["conversationId": .string(conversation.id), "text": .string(conversation.draft)])
            }
        }
        // With `shown` (the draft the editor last loaded or saved), the library's rule for two faces on one chat
        // (`LibraryStore.replaceDraft`): the answer's `text` is the draft held afterwards, which may be another
        // client's.
        registry.register("drafts/set") { context, params in
            let text = try params.optionalString("text") ?? ""
            let shown = try params.optionalString("shown")
            return try await context.session.withConversation(try params.string("conversationId")) {
                conversation, library in
                var stored = text
                if let shown {
                    stored = try library.replaceDraft(conversationId: conversation.id, with: text, shown: shown)
                } else {
                    try library.setDraft(conversationId: conversation.id, text: text)
                }
                return .object(["conversationId": .string(conversation.id), "text": .string(stored)])
            }
        }
    }

    private static func registerConversations(in registry: inout MethodRegistry) {
        registry.register("conversations/list") { context, params in
            let folder: Int64?? =
                params.has("folderId") ? .some(try params.optionalInteger("folderId").map(Int64.init)) : .none
            let pinnedOnly = try params.bool("pinnedOnly")
            let limit = try params.optionalInteger("limit") ?? .max
            return try await context.session.withLibrary { library in
                let paths = try library.folderPaths()
                let list = try library.conversations(folderId: folder, pinnedOnly: pinnedOnly, limit: limit)
                let forks = try library.forkOrigins(of: list.map(\.id))
                return .object([
                    "conversations": .array(
                        try list.map { conversation in
                            guard case .object(var members) = try json(conversation, paths: paths) else { return .null }
                            members["forkedFrom"] = forks[conversation.id].map(ForkMethods.json) ?? .null
                            return .object(members)
                        })
                ])
            }
        }
        registry.register("conversations/get") { context, params in
            let (id, answer) = try await context.session.withConversation(try params.string("id")) {
                conversation, library in
                let messages = try branchJSON(try library.messages(conversationId: conversation.id), library: library)
                return (
                    conversation.id,
                    JSONValue.object([
                        "conversation": try json(conversation, paths: try library.folderPaths()),
                        "messages": messages,
                        "forkedFrom": try ForkMethods.origin(of: conversation.id, in: library)
                    ])
                )
            }
            // An editor opening the conversation (`open`) uses it: `llmster -c` continues it; other lookups do not.
            if try params.bool("open") { try await context.session.recordUse(of: id) }
            return try await withContextMeter(answer, conversationId: id, context)
        }
        registry.register("conversations/create") { context, params in
            let overrides = ConversationOverrides(
                title: try params.optionalString("title") ?? "", model: try params.optionalString("model"),
                systemPrompt: try params.optionalString("systemPrompt"),
                reasoning: try params.optionalString("reasoning"),
                folder: try params.optionalInteger("folderId").map { .id(Int64($0)) },
                integrations: try params.optionalStrings("integrations") ?? [],
                preset: try params.optionalString("preset"))
            let opened = try await context.session.openConversation(.new, overrides: overrides)
            let created = opened.conversation
            return try await context.session.withLibrary { library in
                IntegrationMethods.withNotice(
                    try json(created, paths: try library.folderPaths()), added: opened.enabledIntegrations)
            }
        }
        registry.register("conversations/setSettings") { context, params in
            try await setSettings(context, params)
        }
        registry.register("conversations/rename") { context, params in
            let title = try params.string("title")
            return try await update(params, context) { library, id in try library.rename(conversationId: id, to: title)
            }
        }
        registry.register("conversations/move") { context, params in
            guard params.has("folderId") else {
                throw RPCError.invalidParams("missing parameter \"folderId\" (null for the top level)")
            }
            let folderId = try params.optionalInteger("folderId").map(Int64.init)
            return try await update(params, context) { library, id in
                if let folderId, try library.folder(id: folderId) == nil {
                    throw RPCError.notFound("no folder has id \(folderId)")
                }
                try library.move(conversationId: id, to: folderId)
            }
        }
        registry.register("conversations/pin") { context, params in
            try await update(params, context) { library, id in try library.pin(conversationId: id) }
        }
        registry.register("conversations/unpin") { context, params in
            try await update(params, context) { library, id in try library.unpin(conversationId: id) }
        }
        registry.register("conversations/delete") { context, params in
            try await context.session.withConversation(try params.string("id")) { conversation, library in
                try library.delete(conversationId: conversation.id)
                return .object(["id": .string(conversation.id)])
            }
        }
        registry.register("conversations/search") { context, params in
            let query = try params.string("query")
            let limit = try params.optionalInteger("limit") ?? 50
            return try await context.session.withLibrary { library in
                .object(["hits": try withDisplayTitles(.encoding(try library.search(query, limit: limit)))])
            }
        }
    }

    private static func registerFolders(in registry: inout MethodRegistry) {
        registry.register("folders/list") { context, _ in
            try await context.session.withLibrary { library in
                let paths = try library.folderPaths()
                return .object(["folders": .array(try library.folders().map { try folderJSON($0, paths: paths) })])
            }
        }
        registry.register("folders/create") { context, params in
            let name = try params.string("name")
            let parentId = try params.optionalInteger("parentId").map(Int64.init)
            return try await context.session.withLibrary { library in
                if let parentId, try library.folder(id: parentId) == nil {
                    throw RPCError.notFound("no folder has id \(parentId)")
                }
                let folder = try library.createFolder(name: name, parentId: parentId)
                return try folderJSON(folder, paths: try library.folderPaths())
            }
        }
        registry.register("folders/rename") { context, params in
            let id = Int64(try params.integer("id"))
            let name = try params.string("name")
            return try await context.session.withLibrary { library in
                guard try library.folder(id: id) != nil else { throw RPCError.notFound("no folder has id \(id)") }
                try library.renameFolder(id: id, to: name)
                let folder = try library.folder(id: id)
                return try folder.map { try folderJSON($0, paths: try library.folderPaths()) } ?? .null
            }
        }
        registry.register("folders/delete") { context, params in
            let id = Int64(try params.integer("id"))
            return try await context.session.withLibrary { library in
                guard try library.folder(id: id) != nil else { throw RPCError.notFound("no folder has id \(id)") }
                try library.deleteFolder(id: id)
                return .object(["id": .integer(Int(id))])
            }
        }
    }

    /// `conversations/setSettings`: sampling settings through `ChatSession.setSettings` (the `/set` checks), and the system prompt.
    private static func setSettings(_ context: RequestContext, _ params: Params) async throws -> JSONValue {
        let reference = try params.string("conversationId")
        var changes: [(ConversationSetting, ConversationSetting.Value)] = []
        switch params.members["settings"] {
        case .object(let members)?:
            for (name, value) in members.sorted(by: { $0.key < $1.key }) {
                let setting: ConversationSetting
                do { setting = try ConversationSetting.named(name) } catch { throw ChatError.invalidSetting(error) }
                switch value {
                case .null: changes.append((setting, .clear))
                case .number(let number): changes.append((setting, .number(number)))
                case .string(let text): changes.append((setting, ConversationSetting.Value(typed: text)))
                default: throw RPCError.invalidParams("setting \"\(name)\" must be a number, a string or null")
                }
            }
        case .none, .null?: break
        default: throw RPCError.invalidParams("parameter \"settings\" must be an object")
        }
        let session = context.session
        let id = try await session.resolveConversation(reference).id
        _ = try await session.setSettings(changes, conversationId: id)
        if params.has("systemPrompt") {
            let text = try params.optionalString("systemPrompt")
            _ = try await session.setSystemPrompt(text?.isEmpty == true ? nil : text, conversationId: id)
        }
        // The record carries `needsFreshContext`, saved by the engine.
        return try await session.withLibrary { library in
            try json(try existing(id, in: library), paths: try library.folderPaths())
        }
    }

    /// The conversation with exactly this id, else `not_found`.
    static func existing(_ id: String, in library: LibraryStore) throws -> Conversation {
        guard let conversation = try library.conversation(id: id) else {
            throw RPCError.notFound("no conversation has id \(id)")
        }
        return conversation
    }

    /// Changes the conversation the `id` parameter names (given the library and its exact id) and answers with its new state.
    private static func update(
        _ params: Params, _ context: RequestContext,
        _ change: @Sendable @escaping (LibraryStore, String) throws -> Void
    ) async throws -> JSONValue {
        try await context.session.withConversation(try params.string("id")) { conversation, library in
            try change(library, conversation.id)
            return try json(try existing(conversation.id, in: library), paths: try library.folderPaths())
        }
    }

    /// `answer` (an object) with `contextMeter`: how full the conversation's context is (`ChatSession.contextMeter`).
    static func withContextMeter(_ answer: JSONValue, conversationId: String, _ context: RequestContext) async throws
        -> JSONValue
    {
        guard case .object(var members) = answer else { return answer }
        members["contextMeter"] = meterJSON(try await context.session.contextMeter(conversationId: conversationId))
        return .object(members)
    }

    /// `{used, limit, ratio, label}`: the tokens used, the context length (null when unknown), their ratio (null when the
    /// limit is unknown) and the figure the REPL's prompt shows, e.g. `ctx 3.1k/8k 39%`.
    /// A branch's messages as `conversations/get` gives them: with tool calls, context items, and `unanswered` on user messages.
    static func branchJSON(_ branch: [Message], library: LibraryStore) throws -> JSONValue {
        let unanswered = Message.unansweredIds(in: branch)
        return .array(
            try branch.map { message in
                let json = try messageJSON(
                    message, toolCalls: try library.toolCalls(messageId: message.id),
                    unanswered: message.role == .user ? unanswered.contains(message.id) : nil)
                return ContextMethods.addingContext(
                    to: json, of: message,
                    attachments: message.role == .user ? try library.attachments(messageId: message.id) : [])
            })
    }

    static func meterJSON(_ meter: ContextMeter) -> JSONValue {
        .object([
            "used": .integer(meter.usedTokens),
            "limit": meter.contextLength.map(JSONValue.integer) ?? .null,
            "ratio": meter.ratio().map(JSONValue.number) ?? .null,
            "label": .string(meter.label())
        ])
    }

    /// `hits` (search hits, each with its conversation's stored `title`) with each hit's `displayTitle` beside it.
    static func withDisplayTitles(_ hits: JSONValue) -> JSONValue {
        guard case .array(let items) = hits else { return hits }
        return .array(
            items.map { item in
                guard case .object(var members) = item, case .string(let title)? = members["title"] else { return item }
                members["displayTitle"] = .string(Conversation.displayTitle(of: title))
                return .object(members)
            })
    }

    /// A conversation record plus `displayTitle` (what every face shows: `Untitled` while it has no title), `folderPath`
    /// and its `integrations` by name.
    static func json(_ conversation: Conversation, paths: [Int64: String]) throws -> JSONValue {
        guard case .object(var members) = try JSONValue.encoding(conversation) else { return .null }
        members["displayTitle"] = .string(conversation.displayTitle)
        members["folderPath"] = conversation.folderId.flatMap { paths[$0] }.map(JSONValue.string) ?? .null
        members["integrations"] = .array((conversation.settings.integrations ?? []).map(JSONValue.string))
        return .object(members)
    }

    private static func folderJSON(_ folder: Folder, paths: [Int64: String]) throws -> JSONValue {
        guard case .object(var members) = try JSONValue.encoding(folder) else { return .null }
        members["path"] = paths[folder.id].map(JSONValue.string) ?? .string(folder.name)
        return .object(members)
    }

    /// A message record with `stats` as an object (instead of `statsJSON` text) and its tool calls; an assistant
    /// message also has its `parts` in the server's order (`Message.timeline`) and its `reasoningSeconds`; `unanswered`
    /// (given for a user message of a current branch) says no reply followed it (`Message.unansweredIds(in:)`).
    static func messageJSON(_ message: Message, toolCalls: [ToolCallRecord], unanswered: Bool? = nil) throws
        -> JSONValue
    {
        guard case .object(var members) = try JSONValue.encoding(message) else { return .null }
        if let unanswered { members["unanswered"] = .bool(unanswered) }
        members["statsJSON"] = nil
        members["streamedVersionId"] = message.streamedVersionId.map(JSONValue.string) ?? .null
        members["stats"] = message.statsJSON.flatMap { try? JSONValue.parsing(Array($0.utf8)) } ?? .null
        members["toolCalls"] = .array(
            toolCalls.map { call in
                .object([
                    "name": .string(call.name),
                    "arguments": (try? JSONValue.parsing(Array(call.argumentsJSON.utf8)))
                        ?? .string(call.argumentsJSON),
                    "output": call.output.map(JSONValue.string) ?? .null,
                    "status": .string(call.status.rawValue),
                    "failureReason": call.failureReason.map(JSONValue.string) ?? .null,
                    "answerOffset": call.answerOffset.map { .number(Double($0)) } ?? .null,
                    "reasoningOffset": call.reasoningOffset.map { .number(Double($0)) } ?? .null
                ])
            })
        if message.role == .assistant {
            let timeline = message.timeline(toolCalls: toolCalls)
            let partSeconds = message.reasoningPartSeconds(in: timeline)
            members["parts"] = .array(partsJSON(timeline, reasoningSeconds: partSeconds))
            members["reasoningSeconds"] = message.reasoningSeconds.map(JSONValue.number) ?? .null
            members["reasoningLabel"] =
                message.reasoning.isEmpty ? .null : .string(Figures.reasoningLabel(seconds: message.reasoningSeconds))
            members["codeBlocks"] = .array(CodeBlocks.find(in: message.text).map(JSONValue.string))
        }
        return .object(members)
    }

    /// `{"kind": "reasoning", "text", "seconds", "reasoningLabel"}`, `{"kind": "text", "text"}` or `{"kind": "tool", "index"}`, the
    /// index counting the message's `toolCalls` from 0.
    private static func partsJSON(_ timeline: [ReplyTimelinePart], reasoningSeconds: Double?) -> [JSONValue] {
        var calls = 0
        return timeline.map { part in
            switch part {
            case .reasoning(let thought):
                return .object([
                    "kind": .string("reasoning"), "text": .string(thought),
                    "seconds": reasoningSeconds.map(JSONValue.number) ?? .null,
                    "reasoningLabel": .string(Figures.reasoningLabel(seconds: reasoningSeconds))
                ])
            case .text(let said): return .object(["kind": .string("text"), "text": .string(said)])
            case .toolCall:
                defer { calls += 1 }
                return .object(["kind": .string("tool"), "index": .integer(calls)])
            }
        }
    }
}
