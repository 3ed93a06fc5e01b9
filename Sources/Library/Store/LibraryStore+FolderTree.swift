extension LibraryStore {
    /// The folder `folderId` and every folder below it, in `folders()` order (so the folder comes first).
    public func folderTree(_ folderId: Int64) throws -> [Folder] {
        let all = try folders()
        var included: Set<Int64> = [folderId]
        for folder in all where folder.parentId.map(included.contains) ?? false { included.insert(folder.id) }
        return all.filter { included.contains($0.id) }
    }

    /// Conversations in `folderId` or any folder below it, pinned first (by pin order), then the most recently updated.
    public func conversations(inFolderTree folderId: Int64, pinnedOnly: Bool = false, limit: Int = .max) throws
        -> [Conversation]
    {
        try connection.query(
            """
            WITH RECURSIVE tree(id) AS (SELECT ? UNION ALL SELECT folders.id FROM folders JOIN tree ON folders.parent_id = tree.id)
            SELECT \(Self.conversationColumns) FROM conversations
            WHERE folder_id IN (SELECT id FROM tree) AND \(pinnedOnly ? "pinned = 1" : "pinned IN (0, 1)")
            ORDER BY pinned DESC, pin_order, updated_at DESC LIMIT ?
            """,
            [.integer(folderId), .integer(Int64(max(0, limit)))], row: Self.conversation)
    }
}
