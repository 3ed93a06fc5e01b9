import Foundation

/// One conversation as archived: the JSON of a conversation record (see llmster-format(5)).
struct ConversationDocument: Codable {
    /// The conversation's id in the library it came from (backups restore it; imports assign a new one).
    var id: String
    /// The title shown in lists.
    var title: String
    /// The folder path such as "Work/Research"; nil at the top level.
    var folder: String?
    /// Whether the conversation is pinned.
    var pinned: Bool
    /// Order among pinned conversations (kept by restores; imports pin after the existing ones).
    var pinOrder: Int?
    /// Milliseconds since 1970.
    var createdAt: Int64
    /// The last activity, in milliseconds since 1970.
    var updatedAt: Int64
    /// Unsent input; empty for none.
    var draft: String
    /// The model, system prompt and settings.
    var configuration: Configuration
    /// Where the server-side context is.
    var continuation: Continuation
    /// Every message, in order, replaced alternatives included.
    var messages: [MessageDocument]
    /// Where a fork came from; absent for a conversation that is no fork (and in files written before forks).
    var forkedFrom: ForkOriginDocument?

    /// A fork's source as recorded when it was made.
    struct ForkOriginDocument: Codable {
        /// The source conversation's id (it may no longer exist).
        var conversationId: String
        /// The source's title at the time.
        var title: String
        /// The reply (1-based, on the source's branch then) the fork continues from.
        var reply: Int
    }

    /// The model and the way it is asked.
    struct Configuration: Codable {
        /// The model; nil for the configured default.
        var modelKey: String?
        /// Instructions sent with every request.
        var systemPrompt: String?
        /// Sampling and model options.
        var settings: ConversationSettings
    }

    /// What the next request continues from on the server.
    struct Continuation: Codable {
        /// The server holding the context.
        var serverURL: String?
        /// The `previous_response_id` for the next request.
        var responseId: String?
        /// The model instance that wrote the last reply.
        var modelInstanceId: String?
        /// The `server.NAME` profile the last reply came from; absent when none (and in older files).
        var serverProfile: String?
    }
}

/// One message as archived.
struct MessageDocument: Codable {
    /// The message's id in the library it came from.
    var id: String
    /// Who wrote it.
    var role: MessageRole
    /// The visible text.
    var text: String
    /// The model's reasoning; empty for none.
    var reasoning: String
    /// Complete, streaming, incomplete or error.
    var status: MessageStatus
    /// What went wrong, for an error or incomplete reply.
    var error: String?
    /// The server's stats object as JSON text.
    var stats: String?
    /// The model instance that wrote the reply.
    var modelInstanceId: String?
    /// The server's response id for the reply.
    var responseId: String?
    /// Milliseconds since 1970.
    var createdAt: Int64
    /// Milliseconds since 1970.
    var updatedAt: Int64
    /// The tool calls the reply made, in order.
    var toolCalls: [ToolCallDocument]
    /// The files attached, in order; their bytes follow the conversation record.
    var attachments: [AttachmentDocument]
    /// The id of the message before this one on its branch; nil for a first turn. Files written before
    /// branches existed have none anywhere, and their messages follow each other in order.
    var parentId: String?
    /// True for an alternative off the current branch (a replaced answer or an edited turn); nil means false.
    var alternative: Bool?
    /// For a reply, the `previous_response_id` it was asked with.
    var parentResponseId: String?
    /// For a reply, the server that wrote it.
    var serverURL: String?
}

/// One tool call as archived.
struct ToolCallDocument: Codable {
    /// The tool's name.
    var name: String
    /// The arguments as JSON text.
    var arguments: String
    /// What the tool returned.
    var output: String?
    /// The provider description as JSON text.
    var provider: String?
    /// Running, succeeded or failed.
    var status: ToolCallStatus
    /// Why the call failed.
    var failureReason: String?
    /// UTF-8 bytes of the answer text before the call; absent in files written before llmster kept the order.
    var answerOffset: Int?
    /// UTF-8 bytes of the reasoning before the call; absent in files written before llmster kept the order.
    var reasoningOffset: Int?
}

/// An attachment's description; its bytes follow the conversation record as an attachment record.
struct AttachmentDocument: Codable {
    /// The attachment's id in the library it came from.
    var id: String
    /// The file name.
    var name: String
    /// The media type, e.g. "image/png".
    var mimeType: String
    /// The length of the bytes.
    var size: Int
    /// Lowercase hex SHA-256 of the bytes.
    var sha256: String
}

/// The manifest record of a `.llmster` file.
struct ExportManifest: Codable {
    /// Always `formatName`.
    var format: String
    /// Random; recorded by imports so a second import of the same export is noticed.
    var exportId: String
    /// Milliseconds since 1970.
    var exportedAt: Int64

    /// The manifest's `format` value.
    static let formatName = "llmster-conversation"
}

/// The manifest record of a backup.
struct BackupManifest: Codable {
    /// Always `formatName`.
    var format: String
    /// Milliseconds since 1970.
    var createdAt: Int64

    /// The manifest's `format` value.
    static let formatName = "llmster-backup"
}

/// A folder as archived in a backup.
struct FolderDocument: Codable {
    /// The folder's row id, kept by a restore.
    var id: Int64
    /// The folder's name.
    var name: String
    /// Nil for a top-level folder.
    var parentId: Int64?
    /// 0-based order among its siblings.
    var position: Int
}

extension ConversationDocument {
    /// Checks what JSON decoding cannot: ids, the stats and tool-call JSON, attachment sizes and hashes as declared.
    ///
    /// Every number is range-checked here, before anything is written: dates must be ones the library
    /// stores, orders and token counts must be small non-negative integers, rates finite and non-negative.
    func validate() throws {
        try ArchiveNumbers.date(createdAt, field: "createdAt")
        try ArchiveNumbers.date(updatedAt, field: "updatedAt")
        if let pinOrder { try ArchiveNumbers.order(pinOrder, field: "pinOrder") }
        try settings(configuration.settings)
        var ids = Set<String>()
        for (index, message) in messages.enumerated() {
            guard ids.insert(message.id).inserted else {
                throw ArchiveError.invalid("message \(index) repeats the id \(message.id)")
            }
            try ArchiveNumbers.date(message.createdAt, field: "messages[\(index)].createdAt")
            try ArchiveNumbers.date(message.updatedAt, field: "messages[\(index)].updatedAt")
            if let stats = message.stats { try ArchiveNumbers.statistics(stats, field: "messages[\(index)].stats") }
            if let parent = message.parentId, parent == message.id || !ids.contains(parent) {
                throw ArchiveError.invalid("message \(index): parentId \(parent) is not an earlier message")
            }
            for call in message.toolCalls
            where !Self.isJSON(call.arguments) || !(call.provider.map(Self.isJSON) ?? true) {
                throw ArchiveError.invalid(
                    "message \(index): tool call \(call.name) has arguments or provider that are not JSON")
            }
            for attachment in message.attachments {
                guard attachment.size >= 0, attachment.size <= ArchiveFormat.maximumAttachment else {
                    throw ArchiveError.tooLarge(
                        part: "attachment \(attachment.name)", size: attachment.size,
                        limit: ArchiveFormat.maximumAttachment)
                }
                guard attachment.sha256.count == 64, attachment.sha256.allSatisfy({ $0.isHexDigit && !$0.isUppercase })
                else {
                    throw ArchiveError.invalid("attachment \(attachment.name): sha256 is not 64 lowercase hex digits")
                }
            }
        }
    }

    private func settings(_ settings: ConversationSettings) throws {
        let counts = [
            ("topK", settings.topK), ("maxOutputTokens", settings.maxOutputTokens),
            ("contextLength", settings.contextLength)
        ]
        for case (let name, let value?) in counts {
            try ArchiveNumbers.count(value, field: "configuration.settings.\(name)")
        }
        let rates = [
            ("temperature", settings.temperature), ("topP", settings.topP), ("minP", settings.minP),
            ("repeatPenalty", settings.repeatPenalty)
        ]
        for case (let name, let value?) in rates {
            try ArchiveNumbers.rate(value, field: "configuration.settings.\(name)")
        }
    }

    private static func isJSON(_ text: String) -> Bool {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil
    }
}

/// Range checks for the numbers an archive carries; each failure is `ArchiveError.invalid` naming the field.
enum ArchiveNumbers {
    /// The largest order (pin order, folder position) or count (tokens, context length) a file may hold.
    static let largestCount = Int(Int32.max)
    /// The largest rate (tokens per second, seconds, sampling settings) a file may hold.
    static let largestRate = 1e12

    /// Milliseconds since 1970 that the library stores (the years 1 to 9999).
    static func date(_ milliseconds: Int64, field: String) throws {
        guard Date.storableMilliseconds.contains(milliseconds) else {
            throw ArchiveError.invalid(
                "\(field) is \(milliseconds), not a date llmster stores (milliseconds since 1970, years 1 to 9999)")
        }
    }

    /// A 0-based order among siblings.
    static func order(_ value: Int, field: String) throws {
        guard (0...largestCount).contains(value) else {
            throw ArchiveError.invalid("\(field) is \(value), outside 0 to \(largestCount)")
        }
    }

    /// A count of tokens or the like.
    static func count(_ value: Int, field: String) throws {
        try order(value, field: field)
    }

    /// A finite, non-negative rate or duration.
    static func rate(_ value: Double, field: String) throws {
        guard value.isFinite, (0...largestRate).contains(value) else {
            throw ArchiveError.invalid("\(field) is \(value), outside 0 to \(largestRate)")
        }
    }

    /// The numbers llmster reads from a reply's stats JSON (token counts, speed, time to first token).
    static func statistics(_ json: String, field: String) throws {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed]) else {
            throw ArchiveError.invalid("\(field) is not JSON")
        }
        guard let members = object as? [String: Any] else { return }
        for key in ["input_tokens", "total_output_tokens", "reasoning_output_tokens"] {
            guard let value = members[key], !(value is NSNull) else { continue }
            guard let number = value as? NSNumber, let whole = Int(exactly: number.doubleValue) else {
                throw ArchiveError.invalid("\(field).\(key) is \(value), not a whole number from 0 to \(largestCount)")
            }
            try count(whole, field: "\(field).\(key)")
        }
        for key in ["tokens_per_second", "time_to_first_token_seconds"] {
            guard let value = members[key], !(value is NSNull) else { continue }
            guard let number = value as? NSNumber else { throw ArchiveError.invalid("\(field).\(key) is not a number") }
            try rate(number.doubleValue, field: "\(field).\(key)")
        }
    }
}
