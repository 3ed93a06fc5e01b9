/// The library's schema as an ordered list of migrations; `PRAGMA user_version` counts the ones applied.
enum Schema {
    /// Each step runs in its own write transaction; append new steps, never edit shipped ones.
    static let migrations: [String] = [
        """
        CREATE TABLE folders (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL CHECK (length(trim(name)) > 0 AND instr(name, '/') = 0),
            parent_id INTEGER REFERENCES folders(id) ON DELETE CASCADE,
            position INTEGER NOT NULL
        );
        CREATE UNIQUE INDEX folders_sibling_name ON folders (ifnull(parent_id, 0), name COLLATE NOCASE);
        CREATE INDEX folders_parent ON folders (parent_id, position);

        CREATE TABLE conversations (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            title TEXT NOT NULL,
            folder_id INTEGER REFERENCES folders(id) ON DELETE SET NULL,
            pinned INTEGER NOT NULL DEFAULT 0,
            pin_order INTEGER,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            model_key TEXT,
            system_prompt TEXT,
            settings TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(settings)),
            server_url TEXT,
            last_response_id TEXT,
            draft TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX conversations_listing ON conversations (pinned DESC, pin_order, updated_at DESC);
        CREATE INDEX conversations_folder_listing ON conversations (folder_id, pinned DESC, pin_order, updated_at DESC);
        CREATE INDEX conversations_recent ON conversations (updated_at DESC);
        CREATE INDEX conversations_title ON conversations (title COLLATE NOCASE);

        CREATE TABLE messages (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system')),
            text TEXT NOT NULL DEFAULT '',
            reasoning TEXT NOT NULL DEFAULT '',
            status TEXT NOT NULL CHECK (status IN ('complete', 'streaming', 'incomplete', 'error')),
            error TEXT,
            stats TEXT CHECK (stats IS NULL OR json_valid(stats)),
            model_instance_id TEXT,
            response_id TEXT,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            writer TEXT,
            UNIQUE (conversation_id, position)
        );
        CREATE INDEX messages_streaming ON messages (writer) WHERE status = 'streaming';

        CREATE TABLE tool_calls (
            message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            name TEXT NOT NULL,
            arguments TEXT NOT NULL,
            output TEXT,
            provider TEXT,
            status TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed')),
            failure_reason TEXT,
            PRIMARY KEY (message_id, position)
        ) WITHOUT ROWID;

        CREATE TABLE attachments (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            mime_type TEXT NOT NULL,
            bytes BLOB NOT NULL,
            sha256 TEXT NOT NULL
        );
        CREATE INDEX attachments_message ON attachments (message_id, seq);

        CREATE VIRTUAL TABLE message_search USING fts5 (
            text, content = 'messages', content_rowid = 'seq', tokenize = 'unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER messages_search_insert AFTER INSERT ON messages BEGIN
            INSERT INTO message_search (rowid, text) VALUES (new.seq, new.text);
        END;
        CREATE TRIGGER messages_search_delete AFTER DELETE ON messages BEGIN
            INSERT INTO message_search (message_search, rowid, text) VALUES ('delete', old.seq, old.text);
        END;
        CREATE TRIGGER messages_search_update AFTER UPDATE OF text ON messages WHEN old.text IS NOT new.text BEGIN
            INSERT INTO message_search (message_search, rowid, text) VALUES ('delete', old.seq, old.text);
            INSERT INTO message_search (rowid, text) VALUES (new.seq, new.text);
        END;

        CREATE VIRTUAL TABLE title_search USING fts5 (
            title, content = 'conversations', content_rowid = 'seq', tokenize = 'unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER conversations_search_insert AFTER INSERT ON conversations BEGIN
            INSERT INTO title_search (rowid, title) VALUES (new.seq, new.title);
        END;
        CREATE TRIGGER conversations_search_delete AFTER DELETE ON conversations BEGIN
            INSERT INTO title_search (title_search, rowid, title) VALUES ('delete', old.seq, old.title);
        END;
        CREATE TRIGGER conversations_search_update AFTER UPDATE OF title ON conversations WHEN old.title IS NOT new.title BEGIN
            INSERT INTO title_search (title_search, rowid, title) VALUES ('delete', old.seq, old.title);
            INSERT INTO title_search (rowid, title) VALUES (new.seq, new.title);
        END;
        """,
        // 2: which `.llmster` exports were imported, so importing one again is noticed.
        """
        CREATE TABLE imported_exports (
            export_id TEXT PRIMARY KEY,
            conversation_id TEXT NOT NULL,
            imported_at INTEGER NOT NULL
        );
        """,
        // 3: branches. `parent_id` is the message before this one on its branch; replaced answers and edited
        // turns stay as alternatives (siblings) with `on_branch` = 0. An assistant message keeps the
        // continuation it was sent with (`parent_response_id` on `server_url`), so it can be regenerated.
        """
        ALTER TABLE messages ADD COLUMN parent_id TEXT;
        ALTER TABLE messages ADD COLUMN on_branch INTEGER NOT NULL DEFAULT 1;
        ALTER TABLE messages ADD COLUMN parent_response_id TEXT;
        ALTER TABLE messages ADD COLUMN server_url TEXT;
        UPDATE messages SET parent_id = (
            SELECT p.id FROM messages p
            WHERE p.conversation_id = messages.conversation_id AND p.position < messages.position
            ORDER BY p.position DESC LIMIT 1);
        UPDATE messages SET
            parent_response_id = (
                SELECT p.response_id FROM messages p
                WHERE p.conversation_id = messages.conversation_id AND p.position < messages.position
                    AND p.role = 'assistant' AND p.response_id IS NOT NULL
                ORDER BY p.position DESC LIMIT 1),
            server_url = (SELECT c.server_url FROM conversations c WHERE c.id = messages.conversation_id)
        WHERE role = 'assistant';
        CREATE INDEX messages_branch ON messages (conversation_id, on_branch, position);
        CREATE INDEX messages_parent ON messages (parent_id);
        """,
        // 4: a reply is indexed for search once it stops streaming, not at every partial save (re-indexing the
        // whole text each second made a long reply's saves quadratic), and only its first 1,048,576 characters
        // are indexed, so saving a huge reply (or the partial after Ctrl-C) never waits long on the tokenizer.
        // Existing entries that break the new rule are taken out with the exact text they were indexed with.
        """
        INSERT INTO message_search (message_search, rowid, text)
            SELECT 'delete', seq, text FROM messages WHERE status = 'streaming' OR length(text) > 1048576;
        INSERT INTO message_search (rowid, text)
            SELECT seq, substr(text, 1, 1048576) FROM messages WHERE status <> 'streaming' AND length(text) > 1048576;
        DROP TRIGGER messages_search_insert;
        DROP TRIGGER messages_search_delete;
        DROP TRIGGER messages_search_update;
        CREATE TRIGGER messages_search_insert AFTER INSERT ON messages WHEN new.status <> 'streaming' BEGIN
            INSERT INTO message_search (rowid, text) VALUES (new.seq, substr(new.text, 1, 1048576));
        END;
        CREATE TRIGGER messages_search_delete AFTER DELETE ON messages WHEN old.status <> 'streaming' BEGIN
            INSERT INTO message_search (message_search, rowid, text) VALUES ('delete', old.seq, substr(old.text, 1, 1048576));
        END;
        CREATE TRIGGER messages_search_update AFTER UPDATE OF text, status ON messages BEGIN
            INSERT INTO message_search (message_search, rowid, text)
                SELECT 'delete', old.seq, substr(old.text, 1, 1048576)
                WHERE old.status <> 'streaming' AND (old.text IS NOT new.text OR new.status = 'streaming');
            INSERT INTO message_search (rowid, text)
                SELECT new.seq, substr(new.text, 1, 1048576)
                WHERE new.status <> 'streaming' AND (old.text IS NOT new.text OR old.status = 'streaming');
        END;
        """,
        // 5: a reply whose final text, as the server's `chat.end` gave it, differs from what streamed.
        """
        ALTER TABLE messages ADD COLUMN rewritten INTEGER NOT NULL DEFAULT 0;
        """,
        // 6: where each tool call came in its reply, as UTF-8 offsets into the saved answer and reasoning, so a
        // reply reads back as reasoning, text and tool calls in the server's order. Older calls keep NULL.
        """
        ALTER TABLE tool_calls ADD COLUMN answer_offset INTEGER;
        ALTER TABLE tool_calls ADD COLUMN reasoning_offset INTEGER;
        """,
        // 7: a streaming reply's text saved in pieces, each the answer and reasoning that arrived since the last
        // save, so a partial save costs the new text only; a message's text is its own followed by its pieces.
        """
        CREATE TABLE reply_pieces (
            seq INTEGER PRIMARY KEY,
            message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
            text TEXT NOT NULL,
            reasoning TEXT NOT NULL
        );
        CREATE INDEX reply_pieces_by_message ON reply_pieces(message_id, seq);
        """,
        // 8: a reply whose final event rewrote, shortened or dropped what streamed names the alternative that keeps
        // the streamed version (see `LibraryStore.keepStreamedVersion(of:)`).
        """
        ALTER TABLE messages ADD COLUMN streamed_version_id TEXT;
        """,
        // 9: where a forked conversation came from: the source's id and title at the time and the reply it was
        // forked at (the source may be renamed or deleted later).
        """
        CREATE TABLE forks (
            conversation_id TEXT PRIMARY KEY REFERENCES conversations(id) ON DELETE CASCADE,
            source_id TEXT NOT NULL,
            source_title TEXT NOT NULL,
            reply_number INTEGER NOT NULL
        );
        """,
        // 10: the `server.NAME` profile a conversation's last reply came from, so continuing it goes there.
        """
        ALTER TABLE conversations ADD COLUMN server_profile TEXT;
        """,
        // 11: whether a conversation's saved system prompt waits for a fresh server context (it changed after the
        // context began), so every face, and a later session, knows it is not in effect yet.
        """
        ALTER TABLE conversations ADD COLUMN needs_fresh_context INTEGER NOT NULL DEFAULT 0;
        """,
        // 12: when a conversation was last used (opened or sent to), which `-c` continues; a conversation's
        // last activity (`updated_at`) stays what listings sort by. Until now the two were one.
        """
        ALTER TABLE conversations ADD COLUMN used_at INTEGER NOT NULL DEFAULT 0;
        UPDATE conversations SET used_at = updated_at;
        CREATE INDEX conversations_used ON conversations (used_at DESC);
        """,
        // 13: server URLs are kept without their userinfo (`user:password@`), as `ServerAddress.withoutUserinfo` cuts
        // them: the authority ends at the first `/`, `?` or `#`, and everything up to its last `@` goes (`rtrim` by
        // every character but `@` leaves the authority up to that `@`).
        """
        CREATE TEMP TABLE server_url_without_userinfo AS
        WITH split AS (
            SELECT url, substr(url, 1, instr(url, '://') + 2) AS scheme, substr(url, instr(url, '://') + 3) AS rest
            FROM (SELECT server_url AS url FROM conversations UNION SELECT server_url FROM messages)
            WHERE instr(url, '://') > 0
        ), authority AS (
            SELECT url, scheme, rest, substr(rest, 1, instr(replace(replace(rest, '?', '/'), '#', '/') || '/', '/') - 1) AS host
            FROM split
        )
        SELECT url, scheme || substr(rest, length(rtrim(host, replace(host, '@', ''))) + 1) AS stripped
        FROM authority WHERE instr(host, '@') > 0;
        UPDATE conversations SET server_url = (SELECT stripped FROM server_url_without_userinfo WHERE url = conversations.server_url)
            WHERE server_url IN (SELECT url FROM server_url_without_userinfo);
        UPDATE messages SET server_url = (SELECT stripped FROM server_url_without_userinfo WHERE url = messages.server_url)
            WHERE server_url IN (SELECT url FROM server_url_without_userinfo);
        DROP TABLE server_url_without_userinfo;
        """
    ]

    /// llmster's SQLite application id ("llms"), written into every library's header.
    static let applicationId: Int64 = 0x6C6C_6D73

    /// Throws `LibraryError.notALibrary` unless the file is an llmster library or an empty new file; reads only.
    ///
    /// A library carries `applicationId`; one written before it did has no application id, a `user_version`
    /// and llmster's tables. Any other database (or a file that is no database) is left untouched.
    static func identify(_ connection: SQLiteConnection) throws {
        let application: Int64
        let version: Int
        let tables: Set<String>
        do {
            // One statement, so one snapshot: read apart, a migration another process commits in between showed
            // its tables with the version from before it, and a new library read as another program's.
            let sql = """
                SELECT (SELECT application_id FROM pragma_application_id), (SELECT user_version FROM pragma_user_version),
                       (SELECT group_concat(name, char(10)) FROM sqlite_master WHERE type = 'table')
                """
            let header = try connection.first(sql) { ($0.int64(0), $0.int(1), $0.optionalString(2)) }
            application = header?.0 ?? 0
            version = header?.1 ?? 0
            tables = Set((header?.2 ?? "").split(separator: "\n").map(String.init))
        } catch LibraryError.sqlite(let code, let message, _, _) where code & 0xFF == 26 {
            throw LibraryError.notALibrary(path: connection.path, reason: message)
        }
        if application == applicationId { return }
        guard application == 0 else {
            throw LibraryError.notALibrary(
                path: connection.path,
                reason: "its SQLite application id is 0x\(String(application, radix: 16)), another program's")
        }
        if version == 0, tables.isEmpty { return }
        guard version > 0, tables.isSuperset(of: ["folders", "conversations", "messages"]) else {
            throw LibraryError.notALibrary(path: connection.path, reason: "it is another program's SQLite database")
        }
    }

    /// Throws unless the file already has this build's schema (a read-only library cannot be upgraded).
    static func requireCurrent(_ connection: SQLiteConnection) throws {
        let found = try connection.first("PRAGMA user_version") { $0.int(0) } ?? 0
        if found > migrations.count {
            throw LibraryError.newerSchema(found: found, supported: migrations.count, path: connection.path)
        }
        if found < migrations.count { throw LibraryError.readOnly(path: connection.path) }
    }

    /// Brings the file up to the latest schema and marks it with `applicationId`; safe when several processes
    /// open a new file at once.
    static func migrate(_ connection: SQLiteConnection) throws {
        let supported = migrations.count
        func version() throws -> Int {
            let found = try connection.first("PRAGMA user_version") { $0.int(0) } ?? 0
            if found > supported {
                throw LibraryError.newerSchema(found: found, supported: supported, path: connection.path)
            }
            return found
        }
        let marked = try connection.first("PRAGMA application_id") { $0.int64(0) } == applicationId
        guard try version() < supported || !marked else { return }
        // Two connections converting a brand-new file can race in SQLite's WAL locking and get
        // SQLITE_PROTOCOL, which the busy handler does not cover: the transaction is simply tried again.
        for attempt in 1... {
            do {
                try connection.transaction {
                    let start = try version()
                    for step in migrations[start...] { try connection.execute(step) }
                    try connection.execute("PRAGMA user_version = \(supported)")
                    try connection.execute("PRAGMA application_id = \(applicationId)")
                }
                return
            } catch LibraryError.sqlite(let code, _, _, _) where code == 15 && attempt < 5 {
                continue
            }
        }
    }
}
