import Library

/// Where `ChatSession.exportConversation` writes a conversation.
public enum ExportTarget: Sendable, Equatable {
    /// A `.llmster` file at this path.
    case file(String)
    /// An open file descriptor (standard output).
    case descriptor(Int32)
}

extension ChatSession {
    /// Writes the conversation `reference` names (an id, id prefix or title) to the target `target` picks for it;
    /// returns the conversation and that target. A reference is resolved as `resolveConversation` does.
    @discardableResult
    public func exportConversation(_ reference: String, target: @Sendable (Conversation) throws -> ExportTarget) throws
        -> (conversation: Conversation, target: ExportTarget)
    {
        let conversation = try resolveConversation(reference)
        return try storage {
            let chosen = try target(conversation)
            switch chosen {
            case .file(let path): try library.exportConversation(id: conversation.id, to: path)
            case .descriptor(let descriptor):
                try library.exportConversation(id: conversation.id, descriptor: descriptor)
            }
            return (conversation, chosen)
        }
    }

    /// What importing the `.llmster` file at `path` will do (see `ImportPlan`): every face asks from it, and only when it says so.
    public nonisolated func importPlan(forFileAt path: String) throws -> ImportPlan {
        ImportPlan(file: try LibraryStore.inspectConversationFile(at: path), configured: configuration.server)
    }

    /// Adds the conversation in a `.llmster` file, in one transaction.
    public func importConversation(from path: String, options: ConversationImportOptions) throws -> Conversation {
        try storage { try library.importConversation(from: path, options: options) }
    }

    /// LM Studio's own desktop chats under `directory` (nil: where LM Studio keeps them under `home`), read without
    /// changing anything, and how many of them are in the library already.
    /// A `~` at the start of `directory` stands for `home`, in every face.
    public func scanLMStudioChats(directory: String?, home: String) throws -> (
        scan: LMStudioChats.Scan, alreadyImported: Int
    ) {
        let named = directory.map { $0 == "~" ? home : $0.hasPrefix("~/") ? home + $0.dropFirst() : $0 }
        let scan = try storage {
            try LMStudioChats.scan(directory: named ?? LMStudioChats.defaultDirectory(home: home))
        }
        return (scan, try storage { try library.importedLMStudioChats(scan) })
    }

    /// Imports the chats of `scan` not imported before, each whole or not at all.
    public func importLMStudioChats(_ scan: LMStudioChats.Scan) throws -> (imported: Int, alreadyThere: Int) {
        try storage { try library.importLMStudioChats(scan) }
    }

    /// Backs the whole library up to `path` (encrypted with `password` when given); returns what the backup holds.
    public func backupLibrary(to path: String, password: [UInt8]?) throws -> LibraryStatistics {
        try storage {
            try LibraryBackup.write(libraryPath: library.path, to: path, password: password)
            return try library.statistics()
        }
    }
}
