import Foundation

/// One conversation as archived: the JSON of a conversation record (see llmster-format(5)).
struct ConversationDocument: Codable {
    /// The conversation's id in the library it came from (backups restore it; imports assign a new one).
    var id: String
    var title: String
    /// The folder path such as "Work/Research"; nil at the top level.
    var folder: String?
    var pinned: Bool
    var pinOrder: Int?
    /// Milliseconds since 1970.
    var createdAt: Int64
    var updatedAt: Int64
    var draft: String
    var configuration: Configuration
    var continuation: Continuation
    var messages: [MessageDocument]

    /// The model and the way it is asked.
    struct Configuration: Codable {
        var modelKey: String?
        var systemPrompt: String?
        var settings: ConversationSettings
    }

    /// What the next request continues from on the server.
    struct Continuation: Codable {
        var serverURL: String?
        var responseId: String?
        /// The model instance that wrote the last reply.
        var modelInstanceId: String?
    }
}

/// One message as archived.
struct MessageDocument: Codable {
    var id: String
    var role: MessageRole
    var text: String
    var reasoning: String
    var status: MessageStatus
    var error: String?
    /// The server's stats object as JSON text.
    var stats: String?
    var modelInstanceId: String?
    var responseId: String?
    var createdAt: Int64
    var updatedAt: Int64
    var toolCalls: [ToolCallDocument]
    var attachments: [AttachmentDocument]
}

/// One tool call as archived.
struct ToolCallDocument: Codable {
    var name: String
    var arguments: String
    var output: String?
    var provider: String?
    var status: ToolCallStatus
    var failureReason: String?
}

/// An attachment's description; its bytes follow the conversation record as an attachment record.
struct AttachmentDocument: Codable {
    var id: String
    var name: String
    var mimeType: String
    var size: Int
    /// Lowercase hex SHA-256 of the bytes.
    var sha256: String
}

/// The manifest record of a `.llmster` file.
struct ExportManifest: Codable {
    var format: String
    var exportId: String
    /// Milliseconds since 1970.
    var exportedAt: Int64

    static let formatName = "llmster-conversation"
}

/// The manifest record of a backup.
struct BackupManifest: Codable {
    var format: String
    /// Milliseconds since 1970.
    var createdAt: Int64

    static let formatName = "llmster-backup"
}

/// A folder as archived in a backup.
struct FolderDocument: Codable {
    var id: Int64
    var name: String
    var parentId: Int64?
    var position: Int
}

extension ConversationDocument {
    /// Checks what JSON decoding cannot: ids, the stats and tool-call JSON, attachment sizes and hashes as declared.
    func validate() throws {
        var ids = Set<String>()
        for (index, message) in messages.enumerated() {
            guard ids.insert(message.id).inserted else {
                throw ArchiveError.invalid("message \(index) repeats the id \(message.id)")
            }
            if let stats = message.stats, !Self.isJSON(stats) {
                throw ArchiveError.invalid("message \(index): stats is not JSON")
            }
            for call in message.toolCalls where !Self.isJSON(call.arguments) || !(call.provider.map(Self.isJSON) ?? true) {
                throw ArchiveError.invalid("message \(index): tool call \(call.name) has arguments or provider that are not JSON")
            }
            for attachment in message.attachments {
                guard attachment.size >= 0, attachment.size <= ArchiveFormat.maximumAttachment else {
                    throw ArchiveError.tooLarge(
                        part: "attachment \(attachment.name)", size: attachment.size, limit: ArchiveFormat.maximumAttachment)
                }
                guard attachment.sha256.count == 64, attachment.sha256.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
                    throw ArchiveError.invalid("attachment \(attachment.name): sha256 is not 64 lowercase hex digits")
                }
            }
        }
    }

    private static func isJSON(_ text: String) -> Bool {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil
    }
}
