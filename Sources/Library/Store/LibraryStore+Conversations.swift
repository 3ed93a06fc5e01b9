import Foundation

extension LibraryStore {
    /// The columns `conversation(_:)` reads, in its order.
    static let conversationColumns = """
        id, title, folder_id, pinned, pin_order, created_at, updated_at, model_key, system_prompt, settings,
        server_url, last_response_id, draft, server_profile, needs_fresh_context
        """

    /// The conversation in the current row of a statement selecting `conversationColumns`.
    static func conversation(_ row: SQLiteStatement) throws -> Conversation {
        Conversation(
            id: row.string(0), title: row.string(1), folderId: row.optionalInt64(2), pinned: row.bool(3),
            pinOrder: row.optionalInt(4), createdAt: Date(milliseconds: row.int64(5)),
            updatedAt: Date(milliseconds: row.int64(6)), modelKey: row.optionalString(7),
            systemPrompt: row.optionalString(8), settings: try decodeSettings(row.string(9)),
            serverURL: row.optionalString(10), lastResponseId: row.optionalString(11), draft: row.string(12),
            serverProfile: row.optionalString(13), needsFreshContext: row.bool(14))
    }

    private static func decodeSettings(_ json: String) throws -> ConversationSettings {
        try JSONDecoder().decode(ConversationSettings.self, from: Data(json.utf8))
    }

    private static func encodeSettings(_ settings: ConversationSettings) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(settings), as: UTF8.self)
    }

    /// Creates an empty conversation; `createdAt` is for imports and defaults to now.
    @discardableResult
    public func createConversation(
        title: String, folderId: Int64? = nil, modelKey: String? = nil, systemPrompt: String? = nil,
        settings: ConversationSettings = ConversationSettings(), createdAt: Date = Date()
    ) throws -> Conversation {
        let date = createdAt.stored
        let conversation = Conversation(
            id: Self.newID(), title: title, folderId: folderId, createdAt: date, updatedAt: date,
            modelKey: modelKey, systemPrompt: systemPrompt, settings: settings)
        try insertConversation(conversation)
        return conversation
    }

    /// Inserts a complete record as it is (id, dates, pin, draft included), as an import does; it counts as last used
    /// at its `updatedAt` (see `mostRecentConversation`).
    public func insertConversation(_ conversation: Conversation) throws {
        try connection.transaction {
            if let folderId = conversation.folderId { _ = try requireFolder(folderId) }
            try connection.run(
                """
                INSERT INTO conversations (id, title, folder_id, pinned, pin_order, created_at, updated_at, model_key,
                    system_prompt, settings, server_url, last_response_id, draft, server_profile, needs_fresh_context, used_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?7)
                """,
                [
                    .text(conversation.id), .text(conversation.title), .integer(conversation.folderId),
                    .bool(conversation.pinned), .integer(conversation.pinned ? conversation.pinOrder : nil),
                    .integer(conversation.createdAt.milliseconds), .integer(conversation.updatedAt.milliseconds),
                    .text(conversation.modelKey), .text(conversation.systemPrompt),
                    .text(try Self.encodeSettings(conversation.settings)),
                    .text(conversation.serverURL.map(ServerAddress.withoutUserinfo)),
                    .text(conversation.lastResponseId), .text(conversation.draft), .text(conversation.serverProfile),
                    .bool(conversation.needsFreshContext)
                ])
        }
    }

    /// The conversation with exactly this id, or nil.
    public func conversation(id: String) throws -> Conversation? {
        try connection.first(
            "SELECT \(Self.conversationColumns) FROM conversations WHERE id = ?", [.text(id)], row: Self.conversation)
    }

    /// Finds the conversation a user means: an exact id, an exact title (case-insensitive), or a unique id prefix.
    ///
    /// Throws `LibraryError.notFound` or `.ambiguousConversation` (listing candidates) otherwise.
    public func resolveConversation(_ reference: String) throws -> Conversation {
        let reference = reference.trimmingCharacters(in: .whitespacesAndNewlines)
        if let exact = try conversation(id: reference.lowercased()) { return exact }
        var titled = try connection.query(
            "SELECT \(Self.conversationColumns) FROM conversations WHERE title = ? COLLATE NOCASE LIMIT 11",
            [.text(reference)], row: Self.conversation)
        if titled.isEmpty, reference.contains(where: { !$0.isASCII }) {
            let wanted = reference.lowercased()
            let ids = try connection.query(
                "SELECT id, title FROM conversations", row: { ($0.string(0), $0.string(1)) }
            ).filter { $0.1.lowercased() == wanted }.prefix(11)
            titled = try ids.compactMap { try conversation(id: $0.0) }
        }
        if titled.count == 1 { return titled[0] }
        let prefix = reference.lowercased()
        var prefixed: [Conversation] = []
        if !prefix.isEmpty, prefix.allSatisfy(\.isHexDigit) {
            prefixed = try connection.query(
                "SELECT \(Self.conversationColumns) FROM conversations WHERE id >= ? AND id < ? ORDER BY id LIMIT 11",
                [.text(prefix), .text(prefix + "g")], row: Self.conversation)
            if titled.isEmpty, prefixed.count == 1 { return prefixed[0] }
        }
        var seen: Set<String> = []
        let candidates = (titled + prefixed).filter { seen.insert($0.id).inserted }
            .map { ConversationCandidate(id: $0.id, title: $0.title) }
        guard !candidates.isEmpty else { throw LibraryError.notFound(kind: "conversation", reference: reference) }
        throw LibraryError.ambiguousConversation(reference: reference, candidates: Array(candidates.prefix(10)))
    }

    /// Conversations, pinned first (by pin order), then the most recently updated.
    ///
    /// - Parameter folderId: nil lists every folder; `.some(nil)` only the top level; `.some(id)` one folder.
    public func conversations(folderId: Int64?? = nil, pinnedOnly: Bool = false, limit: Int = .max) throws
        -> [Conversation]
    {
        let order = "ORDER BY pinned DESC, pin_order, updated_at DESC LIMIT ?"
        let pinned = pinnedOnly ? "pinned = 1" : "pinned IN (0, 1)"
        let limit = SQLValue.integer(Int64(max(0, limit)))
        switch folderId {
        case .none:
            return try connection.query(
                "SELECT \(Self.conversationColumns) FROM conversations WHERE \(pinned) \(order)", [limit],
                row: Self.conversation)
        case .some(.none):
            return try connection.query(
                "SELECT \(Self.conversationColumns) FROM conversations WHERE folder_id IS NULL AND \(pinned) \(order)",
                [limit], row: Self.conversation)
        case .some(.some(let folder)):
            return try connection.query(
                "SELECT \(Self.conversationColumns) FROM conversations WHERE folder_id = ? AND \(pinned) \(order)",
                [.integer(folder), limit], row: Self.conversation)
        }
    }

    /// The conversation last used, ignoring pins: the one opened (`markUsed`) or sent to (`appendMessage`) last; a new
    /// or imported conversation counts as used when it was created or last active.
    public func mostRecentConversation() throws -> Conversation? {
        try connection.first(
            "SELECT \(Self.conversationColumns) FROM conversations ORDER BY used_at DESC, seq DESC LIMIT 1",
            row: Self.conversation)
    }

    /// Records that a face opened the conversation now, so `mostRecentConversation` (what `-c` continues) is this one;
    /// its last activity (`updatedAt`, which listings sort by) is unchanged.
    public func markUsed(conversationId: String, at date: Date = Date()) throws {
        try requireChanged(
            connection.run(
                "UPDATE conversations SET used_at = max(used_at, ?) WHERE id = ?",
                [.integer(date.stored.milliseconds), .text(conversationId)]),
            conversationId)
    }

    /// Stores every field of `conversation` except `id` and `createdAt`, as given (including `updatedAt`).
    public func updateConversation(_ conversation: Conversation) throws {
        try connection.transaction {
            if let folderId = conversation.folderId { _ = try requireFolder(folderId) }
            let changed = try connection.run(
                """
                UPDATE conversations SET title = ?, folder_id = ?, pinned = ?, pin_order = ?, updated_at = ?,
                    model_key = ?, system_prompt = ?, settings = ?, server_url = ?, last_response_id = ?, draft = ?,
                    server_profile = ?, needs_fresh_context = ?
                WHERE id = ?
                """,
                [
                    .text(conversation.title), .integer(conversation.folderId), .bool(conversation.pinned),
                    .integer(conversation.pinned ? conversation.pinOrder : nil),
                    .integer(conversation.updatedAt.milliseconds), .text(conversation.modelKey),
                    .text(conversation.systemPrompt), .text(try Self.encodeSettings(conversation.settings)),
                    .text(conversation.serverURL.map(ServerAddress.withoutUserinfo)),
                    .text(conversation.lastResponseId), .text(conversation.draft),
                    .text(conversation.serverProfile), .bool(conversation.needsFreshContext), .text(conversation.id)
                ])
            try requireChanged(changed, conversation.id)
            updatesWrittenHere[conversation.id] = conversation.updatedAt.milliseconds
        }
    }

    /// Changes a conversation's title.
    public func rename(conversationId: String, to title: String) throws {
        try requireChanged(
            connection.run("UPDATE conversations SET title = ? WHERE id = ?", [.text(title), .text(conversationId)]),
            conversationId)
    }

    /// Moves a conversation into a folder, or to the top level with nil.
    public func move(conversationId: String, to folderId: Int64?) throws {
        try connection.transaction {
            if let folderId { _ = try requireFolder(folderId) }
            try requireChanged(
                connection.run(
                    "UPDATE conversations SET folder_id = ? WHERE id = ?", [.integer(folderId), .text(conversationId)]),
                conversationId)
        }
    }

    /// Pins a conversation after the ones already pinned; pinning a pinned conversation keeps its place.
    public func pin(conversationId: String) throws {
        try connection.transaction {
            let pinned = try connection.first(
                "SELECT pinned FROM conversations WHERE id = ?", [.text(conversationId)]
            ) { $0.bool(0) }
            guard let pinned else { throw LibraryError.notFound(kind: "conversation", reference: conversationId) }
            guard !pinned else { return }
            try connection.run(
                """
                UPDATE conversations
                SET pinned = 1, pin_order = (SELECT ifnull(max(pin_order) + 1, 0) FROM conversations WHERE pinned)
                WHERE id = ?
                """, [.text(conversationId)])
        }
    }

    /// Unpins a conversation.
    public func unpin(conversationId: String) throws {
        try requireChanged(
            connection.run(
                "UPDATE conversations SET pinned = 0, pin_order = NULL WHERE id = ?", [.text(conversationId)]),
            conversationId)
    }

    /// Deletes a conversation with its messages, tool calls and attachments.
    public func delete(conversationId: String) throws {
        try connection.transaction {
            try requireChanged(
                connection.run("DELETE FROM conversations WHERE id = ?", [.text(conversationId)]), conversationId)
        }
    }

    /// Keeps unsent input; an empty `text` clears the draft.
    public func setDraft(conversationId: String, text: String) throws {
        try requireChanged(
            connection.run("UPDATE conversations SET draft = ? WHERE id = ?", [.text(text), .text(conversationId)]),
            conversationId)
    }

    /// Keeps a face's unsent input (`text`) as the draft, given the draft that face last showed (`shown`: the one it
    /// loaded, or last saved): an input left as shown writes nothing, so it cannot put back a draft another client
    /// changed since, and an emptied input (sent, or cleared) leaves such a newer draft in place. Input the user
    /// changed is saved. Returns the draft the conversation holds afterwards.
    @discardableResult
    public func replaceDraft(conversationId: String, with text: String, shown: String) throws -> String {
        try transaction {
            guard
                let stored = try connection.first(
                    "SELECT draft FROM conversations WHERE id = ?", [.text(conversationId)], row: { $0.string(0) })
            else { throw LibraryError.notFound(kind: "conversation", reference: conversationId) }
            if text == shown || (text.isEmpty && stored != shown) { return stored }
            try setDraft(conversationId: conversationId, text: text)
            return text
        }
    }

    /// Sets the integrations a conversation may use (by name, duplicates dropped, none when empty); returns the
    /// names it did not use before, so a face can say once that integrations may contact external services.
    @discardableResult
    public func setIntegrations(conversationId: String, names: [String]) throws -> [String] {
        try transaction {
            guard var conversation = try conversation(id: conversationId) else {
                throw LibraryError.notFound(kind: "conversation", reference: conversationId)
            }
            let before = Set(conversation.settings.integrations ?? [])
            var unique: [String] = []
            for name in names where !unique.contains(name) { unique.append(name) }
            conversation.settings.integrations = unique.isEmpty ? nil : unique
            try updateConversation(conversation)
            return unique.filter { !before.contains($0) }
        }
    }

    /// Records the server and response id the next request continues from; nil clears them.
    public func setContinuation(conversationId: String, serverURL: String?, responseId: String?) throws {
        try requireChanged(
            connection.run(
                "UPDATE conversations SET server_url = ?, last_response_id = ? WHERE id = ?",
                [.text(serverURL.map(ServerAddress.withoutUserinfo)), .text(responseId), .text(conversationId)]),
            conversationId)
    }

    /// Records the model the conversation uses, leaving every other field as saved.
    public func setModelKey(conversationId: String, modelKey: String?) throws {
        try requireChanged(
            connection.run(
                "UPDATE conversations SET model_key = ? WHERE id = ?", [.text(modelKey), .text(conversationId)]),
            conversationId)
    }

    /// Records the `server.NAME` profile the conversation's last reply came from (nil: none, a plain URL).
    public func setServerProfile(conversationId: String, profile: String?) throws {
        try requireChanged(
            connection.run(
                "UPDATE conversations SET server_profile = ? WHERE id = ?", [.text(profile), .text(conversationId)]),
            conversationId)
    }

    /// Throws `notFound` for the conversation when a statement changed no row.
    func requireChanged(_ changed: Int, _ conversationId: String) throws {
        if changed == 0 { throw LibraryError.notFound(kind: "conversation", reference: conversationId) }
    }
}
