import Foundation
import SystemSupport

/// LM Studio's own desktop chats (`*.conversation.json` under `~/.lmstudio/conversations`), read for import.
///
/// The format is LM Studio's internal one and not documented. Its shape is taken from the public converters that
/// read it (YorkieDev/lm-studio-conversation-converter): `name`, `createdAt` (milliseconds), `lastUsedModel.identifier`,
/// `systemPrompt` or `perChatPredictionConfig.fields[]` with key `llm.prediction.systemPrompt`, and `messages[]`, each
/// with `versions[]` and `currentlySelected`. A version has a `role` and either `content` (a string, or parts such as
/// `{"type":"text","text":…}`) or, for an answer, `type: "multiStep"` with `steps[]` of `contentBlock`s (their `content`
/// parts, `genInfo.stats`). Assumed, not seen in a converter: a content block styled `thinking` is reasoning, and a
/// `file` part names an image kept in LM Studio's `user-files` directory by its `fileIdentifier`. Unknown fields are
/// skipped; a file that does not have this shape is refused whole, with its name and why.
public enum LMStudioChats {
    /// The chats of one directory tree, read without changing anything.
    public struct Scan: Sendable {
        /// The directory read.
        public var directory: String
        /// The chats that can be imported, oldest first.
        public var chats: [Chat]
        /// Files that cannot be read, with why.
        public var unreadable: [(file: String, reason: String)]

        /// The folders the chats go to (their sub-directories), sorted.
        public var folders: [String] { Array(Set(chats.compactMap(\.folder))).sorted() }
        /// Every message of every chat, alternatives included.
        public var messageCount: Int { chats.reduce(0) { $0 + $1.document.messages.count } }
    }

    /// One chat, ready to import.
    public struct Chat: Sendable {
        /// Its file, relative to the scanned directory.
        public var file: String
        /// The library folder it goes to: the file's sub-directory, nil at the top.
        public var folder: String?
        public var title: String { document.title }
        /// Images its messages named that were not found, by name.
        public var missingImages: [String]
        /// What keeps a second import from importing it again: the file and its creation time.
        var origin: String
        var document: ConversationDocument
        var images: [(attachment: AttachmentDocument, bytes: [UInt8])]
    }

    /// Why a chat file, or the directory, cannot be read.
    public struct Unreadable: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// Where LM Studio keeps its chats: `~/.lmstudio/conversations`, or on older installs `~/.cache/lm-studio/conversations`.
    public static func defaultDirectory(home: String) -> String {
        let current = home + "/.lmstudio/conversations"
        let older = home + "/.cache/lm-studio/conversations"
        return FileManager.default.fileExists(atPath: current) || !FileManager.default.fileExists(atPath: older)
            ? current : older
    }

    /// The largest chat file read (LM Studio keeps images apart, so a chat is text).
    static let maximumFileBytes = 64 << 20

    /// Reads every `*.conversation.json` under `directory` (sub-directories are folders); nothing is written.
    public static func scan(directory: String) throws -> Scan {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw Unreadable("\(directory) is not a directory of LM Studio chats")
        }
        let root = URL(fileURLWithPath: directory).standardizedFileURL
        let userFiles = root.deletingLastPathComponent().appendingPathComponent("user-files").path
        var scan = Scan(directory: root.path, chats: [], unreadable: [])
        let files = (FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".conversation.json") }.sorted()
        for file in files {
            do {
                scan.chats.append(try read(file, in: root.path, userFiles: userFiles))
            } catch {
                scan.unreadable.append((file, String(describing: error)))
            }
        }
        scan.chats.sort { $0.document.createdAt < $1.document.createdAt }
        return scan
    }

    private static func read(_ file: String, in root: String, userFiles: String) throws -> Chat {
        let path = root + "/" + file
        // Regular files only, read without blocking: a FIFO in LM Studio's folder is refused, never waited on.
        let read: [UInt8]?
        do throws(RegularFileError) { read = try RegularFile.read(path, limit: maximumFileBytes) } catch {
            throw Unreadable(error.description)
        }
        guard let bytes = read else { throw Unreadable("larger than \(maximumFileBytes >> 20) MiB") }
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        guard let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] else {
            throw Unreadable("not a JSON object")
        }
        guard let messages = object["messages"] as? [[String: Any]] else { throw Unreadable("no messages array") }
        let created = Int64(exactly: (object["createdAt"] as? NSNumber)?.doubleValue.rounded() ?? 0) ?? 0
        let modified = (attributes[.modificationDate] as? Date)?.milliseconds ?? created
        let createdAt = created > 0 ? created : modified
        let model = (object["lastUsedModel"] as? [String: Any])?["identifier"] as? String
        let fields = ((object["perChatPredictionConfig"] as? [String: Any])?["fields"] as? [[String: Any]]) ?? []
        let prompt =
            (object["systemPrompt"] as? String).flatMap { $0.isEmpty ? nil : $0 }
            ?? fields.first { $0["key"] as? String == "llm.prediction.systemPrompt" }?["value"] as? String
        var built = Builder(userFiles: userFiles, createdAt: createdAt)
        for (index, message) in messages.enumerated() {
            try built.add(message, number: index + 1)
        }
        let name = (object["name"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        let folder = (file as NSString).deletingLastPathComponent
        let document = ConversationDocument(
            id: UUID().uuidString, title: name, folder: folder.isEmpty ? nil : folder, pinned: false, pinOrder: nil,
            createdAt: createdAt, updatedAt: max(modified, createdAt), draft: "",
            configuration: .init(
                modelKey: model, systemPrompt: prompt?.isEmpty == false ? prompt : nil, settings: ConversationSettings()
            ),
            continuation: .init(serverURL: nil, responseId: nil, modelInstanceId: nil, serverProfile: nil),
            messages: built.messages, forkedFrom: nil)
        // Without its creation time a chat is known by its file alone: the file's modification time changes with it.
        return Chat(
            file: file, folder: document.folder, missingImages: built.missingImages,
            origin: created > 0 ? "lmstudio:\(file):\(created)" : "lmstudio:\(file)",
            document: document, images: built.images)
    }

    /// Turns LM Studio's messages, each a list of versions, into the library's branch: the chosen version of each on
    /// the branch, the others beside it as alternatives.
    private struct Builder {
        let userFiles: String
        let createdAt: Int64
        var messages: [MessageDocument] = []
        var images: [(attachment: AttachmentDocument, bytes: [UInt8])] = []
        var missingImages: [String] = []
        /// The chosen version of the previous message: the parent of the next one's versions.
        var previous: String?

        init(userFiles: String, createdAt: Int64) {
            self.userFiles = userFiles
            self.createdAt = createdAt
        }

        mutating func add(_ message: [String: Any], number: Int) throws {
            guard let versions = message["versions"] as? [[String: Any]], !versions.isEmpty else {
                throw Unreadable("message \(number) has no versions")
            }
            let selected = (message["currentlySelected"] as? Int) ?? 0
            guard versions.indices.contains(selected) else {
                throw Unreadable("message \(number) selects version \(selected + 1) of \(versions.count)")
            }
            let parent = previous
            var chosen: String?
            for (index, version) in versions.enumerated() {
                guard
                    let document = try self.document(
                        version, number: number, parent: parent, alternative: index != selected)
                else { continue }
                messages.append(document)
                if index == selected { chosen = document.id }
            }
            if let chosen { previous = chosen }
        }

        /// One version as a message; nil for a role the library does not keep (a system message).
        private mutating func document(_ version: [String: Any], number: Int, parent: String?, alternative: Bool) throws
            -> MessageDocument?
        {
            let role: MessageRole
            switch version["role"] as? String {
            case "user": role = .user
            case "assistant": role = .assistant
            case "system": return nil
            case let other: throw Unreadable("message \(number) has the role \(other.map { "\"\($0)\"" } ?? "none")")
            }
            let id = UUID().uuidString
            var text: [String] = []
            var reasoning: [String] = []
            var attachments: [AttachmentDocument] = []
            var stats: String?
            if version["type"] as? String == "multiStep" {
                for step in version["steps"] as? [[String: Any]] ?? [] where step["type"] as? String == "contentBlock" {
                    let block = Self.text(of: step["content"])
                    guard !block.isEmpty else { continue }
                    if (step["style"] as? [String: Any])?["type"] as? String == "thinking" {
                        reasoning.append(block)
                    } else {
                        text.append(block)
                    }
                    if let figures = ((step["genInfo"] as? [String: Any])?["stats"] as? [String: Any]) {
                        stats = Self.stats(figures)
                    }
                }
            } else {
                text.append(Self.text(of: version["content"]))
                for part in version["content"] as? [[String: Any]] ?? [] where part["type"] as? String == "file" {
                    if let attachment = image(part) { attachments.append(attachment) }
                }
            }
            return MessageDocument(
                id: id, role: role, text: text.joined(separator: "\n\n"),
                reasoning: reasoning.joined(separator: "\n\n"),
                status: .complete, error: nil, stats: stats, modelInstanceId: nil, responseId: nil,
                createdAt: createdAt, updatedAt: createdAt, toolCalls: [], attachments: attachments, parentId: parent,
                alternative: alternative ? true : nil, parentResponseId: nil, serverURL: nil)
        }

        /// The text parts of `content` (a string, or parts), joined by line breaks.
        private static func text(of content: Any?) -> String {
            if let text = content as? String { return text }
            let parts = content as? [[String: Any]] ?? []
            return parts.compactMap { $0["type"] as? String == "text" ? $0["text"] as? String : nil }.joined(
                separator: "\n")
        }

        /// LM Studio's generation figures under the server's names (`stats` of `/api/v1/chat`), as JSON text.
        private static func stats(_ figures: [String: Any]) -> String? {
            let names = [
                "promptTokensCount": "input_tokens", "predictedTokensCount": "total_output_tokens",
                "tokensPerSecond": "tokens_per_second", "timeToFirstTokenSec": "time_to_first_token_seconds"
            ]
            var mapped: [String: Any] = [:]
            for (from, to) in names { if let value = figures[from] as? NSNumber { mapped[to] = value } }
            guard !mapped.isEmpty, let data = try? JSONSerialization.data(withJSONObject: mapped, options: .sortedKeys)
            else { return nil }
            return String(decoding: data, as: UTF8.self)
        }

        /// An image part's file from LM Studio's `user-files`, when it is there and no larger than an attachment may be.
        private mutating func image(_ part: [String: Any]) -> AttachmentDocument? {
            guard let identifier = part["fileIdentifier"] as? String, !identifier.contains("/"),
                !identifier.hasPrefix(".")
            else { return nil }
            let name = (part["name"] as? String) ?? identifier
            let path = userFiles + "/" + identifier
            let mime = Self.imageType(of: identifier) ?? Self.imageType(of: name)
            guard let mime, let bytes = (try? RegularFile.read(path, limit: ArchiveFormat.maximumAttachment)) ?? nil
            else {
                missingImages.append(name)
                return nil
            }
            let attachment = AttachmentDocument(
                id: UUID().uuidString, name: name, mimeType: mime, size: bytes.count,
                sha256: LibraryStore.sha256(bytes))
            images.append((attachment, bytes))
            return attachment
        }

        private static func imageType(of name: String) -> String? {
            switch (name as NSString).pathExtension.lowercased() {
            case "png": "image/png"
            case "jpg", "jpeg": "image/jpeg"
            case "gif": "image/gif"
            case "webp": "image/webp"
            default: nil
            }
        }
    }
}

extension LibraryStore {
    /// Imports the chats of `scan` that are not in the library yet, each in its own transaction (a chat is imported
    /// whole or not at all); a chat imported before (the same file, created at the same time) is left out. Returns how
    /// many were imported and how many were there already.
    public func importLMStudioChats(_ scan: LMStudioChats.Scan) throws -> (imported: Int, alreadyThere: Int) {
        var imported = 0
        var there = 0
        for chat in scan.chats {
            let done = try transaction { () -> Bool in
                guard
                    try connection.first(
                        "SELECT 1 FROM imported_exports WHERE export_id = ?", [.text(chat.origin)], row: { $0.int(0) })
                        == nil
                else { return false }
                let folder = try chat.folder.map { try ensureFolder(path: $0).id }
                let (conversationId, owners) = try insert(
                    chat.document, folderId: folder, newIds: true, keepContinuation: false, pinOrder: nil)
                for (index, image) in chat.images.enumerated() {
                    try insertAttachment(image.attachment, bytes: image.bytes, messageId: owners[index], newId: true)
                }
                try connection.run(
                    "INSERT INTO imported_exports (export_id, conversation_id, imported_at) VALUES (?, ?, ?)",
                    [.text(chat.origin), .text(conversationId), .integer(Date().milliseconds)])
                return true
            }
            if done { imported += 1 } else { there += 1 }
        }
        return (imported, there)
    }

    /// How many of `scan`'s chats were imported before.
    public func importedLMStudioChats(_ scan: LMStudioChats.Scan) throws -> Int {
        try scan.chats.filter { chat in
            try connection.first(
                "SELECT 1 FROM imported_exports WHERE export_id = ?", [.text(chat.origin)], row: { $0.int(0) }) != nil
        }.count
    }
}
