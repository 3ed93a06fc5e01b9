import Chat
import Foundation
import HTTP
import LMStudio
import Library

/// `context/add`, `context/list`, `context/remove`: the context items (files, pages, command output, an editor's
/// named text) waiting for the next `chat/send` on a conversation, which sends and saves them with its message.
enum ContextMethods {
    static func register(in registry: inout MethodRegistry) {
        registry.register("context/add") { context, params in
            let key = try await conversationKey(params, session: context.session)
            let (added, skipped) = try await read(params, session: context.session)
            let items: [ContextItem]
            do { items = try await context.session.addPendingContext(added, to: key) } catch let error as ContextError {
                throw rpcError(error)
            }
            return .object([
                "added": .array(added.map(json)),
                "skipped": .array(skipped.map { .object(["path": .string($0.path), "reason": .string($0.reason)]) }),
                "items": .array(items.map(json))
            ])
        }
        registry.register("context/list") { context, params in
            let key = try await conversationKey(params, session: context.session)
            let items = await context.session.pendingContext(key)
            return .object([
                "items": .array(items.map(json)),
                "bytes": .integer(items.reduce(0) { $0 + $1.byteCount }),
                "estimatedTokens": .integer(ContextMeter.estimateTokens(ContextItem.input(items, message: "")))
            ])
        }
        registry.register("context/remove") { context, params in
            let key = try await conversationKey(params, session: context.session)
            var items = await context.session.pendingContext(key)
            if try params.bool("all") {
                items = []
            } else {
                let index = try params.integer("index")
                guard items.indices.contains(index) else {
                    throw RPCError.invalidParams("no context item \(index): \(items.count) wait (indexes count from 0)")
                }
                items.remove(at: index)
            }
            await context.session.setPendingContext(items, for: key)
            return .object(["items": .array(items.map(json))])
        }
    }

    /// The items `chat/send` sends: those waiting for the conversation (`conversationId` nil: a new one), then its
    /// own `context` array, each entry `{path}`, `{url}`, `{name, text}` or `{command}`.
    static func items(for reference: String?, _ params: Params, session: ChatSession) async throws -> [ContextItem] {
        let conversationId = try await conversationKey(reference, session: session)
        var items = await session.pendingContext(conversationId)
        switch params.members["context"] {
        case .none, .null?: break
        case .array(let entries)?:
            for entry in entries {
                guard case .object(let members) = entry else {
                    throw RPCError.invalidParams("each entry of \"context\" must be an object")
                }
                items += try await read(try Params(.object(members)), session: session).added
            }
        default: throw RPCError.invalidParams("parameter \"context\" must be an array")
        }
        do { try session.contextLimits.check(items) } catch { throw rpcError(error) }
        return items
    }

    /// Forgets the items waiting for `conversationId` (nil: a new conversation's) once a `chat/send` saved them with its message.
    static func sent(to conversationId: String?, session: ChatSession) async {
        await session.setPendingContext([], for: conversationId)
    }

    /// The items one entry names: `path` (a file, directory or glob, relative to `directory` or llmster's working
    /// directory), `url`, `text` with `name`, or `command`.
    private static func read(_ params: Params, session: ChatSession) async throws -> (
        added: [ContextItem], skipped: [ContextReader.Skipped]
    ) {
        let given = ["path", "url", "text", "command"].filter {
            params.members[$0] != nil && params.members[$0] != .null
        }
        guard given.count == 1 else {
            throw RPCError.invalidParams("give one of \"path\", \"url\", \"text\" (with \"name\") or \"command\"")
        }
        do {
            switch given[0] {
            case "path":
                let directory = try params.optionalString("directory") ?? FileManager.default.currentDirectoryPath
                let reading = try session.readContext(try params.string("path"), directory: directory)
                return (reading.items, reading.skipped)
            case "url":
                return ([try await session.fetchContext(try params.string("url"), transport: CurlTransport())], [])
            case "command":
                return ([try await session.runContext(try params.string("command"))], [])
            default:
                let name = try params.string("name")
                let text = try params.string("text")
                return (
                    [try ContextReader(limits: session.contextLimits).text(named: name, bytes: Array(text.utf8))], []
                )
            }
        } catch let error as ContextError {
            throw rpcError(error)
        }
    }

    /// `context_overflow` for an overflow or a message over its limit; `cancelled` for a command stopped by
    /// `$/cancelRequest` or the end of the input; `invalid_context` for an item that cannot be used.
    static func rpcError(_ error: ContextError) -> RPCError {
        switch error {
        case .messageTooLarge:
            RPCError(code: RPCError.contextOverflowCode, message: error.description, kind: "context_overflow")
        case .commandStopped:
            RPCError(.cancelled, message: error.description)
        default:
            RPCError(code: RPCError.invalidParamsCode, message: error.description, kind: "invalid_context")
        }
    }

    /// An item as the methods answer it: `name`, `kind` (file, page, command, text), `bytes`, `estimatedTokens`,
    /// `chip`, and by kind `fetchedAt`, `exitStatus`, `cutFrom`.
    static func json(_ item: ContextItem) -> JSONValue {
        var fields: [String: JSONValue] = [
            "name": .string(item.name), "bytes": .integer(item.byteCount),
            "estimatedTokens": .integer(item.estimatedTokens),
            "chip": .string(item.chip)
        ]
        switch item.source {
        case .file: fields["kind"] = .string("file")
        case .page(let date):
            fields["kind"] = .string("page")
            fields["fetchedAt"] = .string(ISO8601DateFormatter().string(from: date))
        case .command(let status):
            fields["kind"] = .string("command")
            fields["exitStatus"] = .integer(Int(status))
        case .text: fields["kind"] = .string("text")
        }
        if let cutFrom = item.cutFrom { fields["cutFrom"] = .integer(cutFrom) }
        return .object(fields)
    }

    /// A user message's JSON with `context`: the items it was sent with (``json(_:)``, and each one's `text`).
    static func addingContext(to message: JSONValue, of record: Message, attachments: [Attachment]) -> JSONValue {
        guard record.role == .user, case .object(var members) = message else { return message }
        members["context"] = .array(
            attachments.compactMap(ContextItem.init(attachment:)).map { item in
                guard case .object(var fields) = json(item) else { return .null }
                fields["text"] = .string(item.text)
                return .object(fields)
            })
        // The images sent with it, by name, so a reopened chat lists them as the open one did.
        members["images"] = .array(
            attachments.filter { $0.mimeType.hasPrefix("image/") }.map { image in
                .object([
                    "name": .string(image.name), "mimeType": .string(image.mimeType),
                    "bytes": .integer(image.bytes.count)
                ])
            })
        return .object(members)
    }

    /// The pending-items key `conversationId` names: the conversation's id, or nil for the next new conversation.
    private static func conversationKey(_ params: Params, session: ChatSession) async throws -> String? {
        try await conversationKey(try params.optionalString("conversationId"), session: session)
    }

    private static func conversationKey(_ reference: String?, session: ChatSession) async throws -> String? {
        guard let reference else { return nil }
        return try await session.withConversation(reference) { conversation, _ in conversation.id }
    }
}
