import Foundation

/// What a `.llmster` file holds, read and fully checked before anything is imported.
public struct ConversationFileSummary: Equatable, Sendable {
    /// Identifies the export; importing it again is refused unless a copy is asked for.
    public var exportId: String
    /// When the file was written.
    public var exportedAt: Date
    /// The conversation's title.
    public var title: String
    /// The folder path the conversation was in; nil at the top level.
    public var folder: String?
    /// How many messages the conversation has.
    public var messages: Int
    /// How many attachments its messages carry.
    public var attachments: Int
    /// The server holding the conversation's context; nil when it has none.
    public var serverURL: String?
    /// The response the next request would continue from.
    public var responseId: String?
}

/// How `importConversation` places the conversation.
public struct ConversationImportOptions: Sendable {
    /// Keep the server URL and last response id, so the next message continues the server's context.
    public var keepContinuation: Bool
    /// A folder path overriding the file's; created when missing.
    public var folder: String?
    /// Import even when this export was imported before (a copy with new ids).
    public var asNew: Bool

    /// Creates options; by default the continuation is kept, the file's folder used and a repeated import refused.
    public init(keepContinuation: Bool = true, folder: String? = nil, asNew: Bool = false) {
        self.keepContinuation = keepContinuation
        self.folder = folder
        self.asNew = asNew
    }
}

extension LibraryStore {
    /// Writes a conversation as a `.llmster` file at `path`, as `OutputFile` writes it (a regular file atomically).
    public func exportConversation(id: String, to path: String) throws {
        try writeOutput(to: path) { try exportConversation(id: id, sink: $0) }
    }

    /// Writes a conversation as a `.llmster` file to an open descriptor (e.g. standard output).
    public func exportConversation(id: String, descriptor: Int32) throws {
        let sink = ByteSink(descriptor: descriptor, name: "standard output")
        try exportConversation(id: id, sink: sink)
        try sink.flush()
    }

    private func exportConversation(id: String, sink: ByteSink) throws {
        guard let conversation = try conversation(id: id) else {
            throw LibraryError.notFound(kind: "conversation", reference: id)
        }
        let document = try document(for: conversation)
        let writer = try ArchiveWriter(kind: .conversation, sink: sink, password: nil, limits: .interactive)
        try writer.record(
            .manifest,
            json: ExportManifest(
                format: ExportManifest.formatName, exportId: Self.newID() + Self.newID(),
                exportedAt: Date().milliseconds))
        try writer.record(.conversation, json: document)
        for attachment in document.messages.flatMap(\.attachments) {
            try writer.record(.attachment, attachmentBytes(id: attachment.id))
        }
        try writer.finish()
    }

    /// Reads and checks a whole `.llmster` file (version, fields, sizes, hashes) without importing it.
    public static func inspectConversationFile(at path: String) throws -> ConversationFileSummary {
        var summary: ConversationFileSummary?
        try readConversationFile(at: path) { manifest, document in
            summary = ConversationFileSummary(
                exportId: manifest.exportId, exportedAt: Date(milliseconds: manifest.exportedAt), title: document.title,
                folder: document.folder, messages: document.messages.count,
                attachments: document.messages.reduce(0) { $0 + $1.attachments.count },
                serverURL: document.continuation.serverURL, responseId: document.continuation.responseId)
        } attachment: { attachment, bytes in
            guard sha256(bytes) == attachment.sha256 else {
                throw ArchiveError.invalid("attachment \(attachment.name): the SHA-256 does not match its bytes")
            }
        }
        return summary!
    }

    /// Imports a `.llmster` file in one transaction: on any error nothing is imported.
    ///
    /// Throws `ArchiveError.alreadyImported` when the library holds the exported conversation itself or this export was
    /// imported before, unless `options.asNew`.
    @discardableResult
    public func importConversation(from path: String, options: ConversationImportOptions = .init()) throws
        -> Conversation
    {
        try transaction {
            var conversationId = ""
            var owners: [String] = []
            var next = 0
            try Self.readConversationFile(at: path) { manifest, document in
                if !options.asNew,
                    let existing = try conversation(id: document.id)
                        ?? connection.first(
                            "SELECT conversation_id FROM imported_exports WHERE export_id = ?",
                            [.text(manifest.exportId)],
                            row: { $0.string(0) }
                        ).flatMap({ try conversation(id: $0) })
                {
                    throw ArchiveError.alreadyImported(conversationId: existing.id, title: existing.title)
                }
                let folder = try (options.folder ?? document.folder).map { try ensureFolder(path: $0).id }
                let pinOrder =
                    document.pinned
                    ? try connection.first("SELECT ifnull(max(pin_order) + 1, 0) FROM conversations WHERE pinned") {
                        $0.int(0)
                    }
                    : nil
                (conversationId, owners) = try insert(
                    document, folderId: folder, newIds: true, keepContinuation: options.keepContinuation,
                    pinOrder: pinOrder)
                try connection.run(
                    "INSERT OR REPLACE INTO imported_exports (export_id, conversation_id, imported_at) VALUES (?, ?, ?)",
                    [.text(manifest.exportId), .text(conversationId), .integer(Date().milliseconds)])
            } attachment: { attachment, bytes in
                try insertAttachment(attachment, bytes: bytes, messageId: owners[next], newId: true)
                next += 1
            }
            return try conversation(id: conversationId)!
        }
    }

    /// Streams a `.llmster` file: the manifest and conversation, then each attachment with its description.
    private static func readConversationFile(
        at path: String, document onDocument: (ExportManifest, ConversationDocument) throws -> Void,
        attachment onAttachment: (AttachmentDocument, [UInt8]) throws -> Void
    ) throws {
        let file = try OpenFile(reading: path)
        let reader = try ArchiveReader(
            kind: .conversation, source: ByteSource(descriptor: file.descriptor, name: path), name: path,
            password: { nil })
        let limit: (RecordType) -> Int = {
            $0 == .attachment ? ArchiveFormat.maximumAttachment : ArchiveFormat.maximumJSONRecord
        }
        guard let (firstType, first) = try reader.next(limit: limit), firstType == .manifest else {
            throw ArchiveError.invalid("the first record must be the manifest")
        }
        let manifest = try ArchiveJSON.decode(ExportManifest.self, first, record: "the manifest")
        guard manifest.format == ExportManifest.formatName else {
            throw ArchiveError.invalid(
                "the manifest's format is \"\(manifest.format)\", not \"\(ExportManifest.formatName)\"")
        }
        try ArchiveNumbers.date(manifest.exportedAt, field: "the manifest's exportedAt")
        guard let (secondType, second) = try reader.next(limit: limit), secondType == .conversation else {
            throw ArchiveError.invalid("the second record must be the conversation")
        }
        let document = try ArchiveJSON.decode(ConversationDocument.self, second, record: "the conversation")
        try document.validate()
        try onDocument(manifest, document)
        for attachment in document.messages.flatMap(\.attachments) {
            guard let (type, bytes) = try reader.next(limit: { _ in attachment.size }), type == .attachment else {
                throw ArchiveError.invalid("attachment \(attachment.name) is missing")
            }
            guard bytes.count == attachment.size else {
                throw ArchiveError.invalid(
                    "attachment \(attachment.name) has \(bytes.count) bytes, not \(attachment.size)")
            }
            try onAttachment(attachment, bytes)
        }
        guard try reader.next(limit: { _ in 0 }) == nil else {
            throw ArchiveError.invalid("records follow the last attachment")
        }
    }
}
