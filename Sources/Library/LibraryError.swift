/// A failure of the local library, with enough context to read well when printed.
public enum LibraryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// SQLite refused a statement; `sql` is nil when the failure came from opening or configuring the file.
    case sqlite(code: Int32, message: String, sql: String?, path: String)
    /// The library's directory or file could not be created.
    case cannotCreate(path: String, reason: String)
    /// The file was written by a newer llmster whose schema this build does not know.
    case newerSchema(found: Int, supported: Int, path: String)
    /// No record of `kind` ("conversation", "folder", "message") matches `reference`.
    case notFound(kind: String, reference: String)
    /// `reference` matches several conversations; `candidates` lists them (id, title), at most ten.
    case ambiguousConversation(reference: String, candidates: [ConversationCandidate])
    /// A folder name is empty, or contains "/" (which separates folder paths).
    case invalidFolderName(String)
    /// A sibling folder already has this name (compared case-insensitively).
    case folderExists(name: String, parentId: Int64?)
    /// The file is not an llmster library (another program's database, not a database, not a regular file);
    /// nothing in it was changed.
    case notALibrary(path: String, reason: String)
    /// The library was opened read-only (see `LibraryStore.isReadOnly`), so it cannot be changed or upgraded.
    case readOnly(path: String)
    /// Other processes have the library open (`holders`: "pid (command)" each), so it cannot be replaced now.
    case inUse(path: String, holders: [String])
    /// Another writer (`inThisProcess`, else `holders`: "pid (command)" each) is answering the conversation, so a
    /// second send to it would interleave the turns.
    case conversationInUse(conversationId: String, inThisProcess: Bool, holders: [String])

    /// A message fit to show the user.
    public var description: String {
        switch self {
        case .sqlite(let code, _, _, let path) where code & 0xFF == 8:
            return LibraryError.readOnly(path: path).description
        case .sqlite(let code, let message, let sql, let path):
            let statement = sql.map { " while running: \($0.trimmingWhitespace)" } ?? ""
            return "library \(path): SQLite error \(code): \(message)\(statement)"
        case .cannotCreate(let path, let reason):
            return "cannot create library at \(path): \(reason)"
        case .newerSchema(let found, let supported, let path):
            return
                "library \(path) has schema version \(found), newer than this llmster supports (\(supported)); upgrade llmster"
        case .notFound(let kind, let reference):
            return "no \(kind) matches \"\(reference)\""
        case .ambiguousConversation(let reference, let candidates):
            let list = candidates.map { "  \($0.id)  \($0.title)" }.joined(separator: "\n")
            return "\"\(reference)\" matches several conversations; use a longer id prefix:\n\(list)"
        case .invalidFolderName(let name):
            return "invalid folder name \"\(name)\": it must be non-empty and must not contain \"/\""
        case .folderExists(let name, _):
            return "a folder named \"\(name)\" already exists there"
        case .notALibrary(let path, let reason):
            return "\(path) is not an llmster library (\(reason)); nothing in it was changed. Give another --library"
        case .readOnly(let path):
            return
                "library \(path) is read-only: it can be listed, shown and exported, but nothing can be saved or changed (make it and its directory writable)"
        case .inUse(let path, let holders):
            let who = holders.isEmpty ? "another process" : "process " + holders.joined(separator: ", ")
            return "library \(path) is in use by \(who); let it finish (or quit it), then try again"
        case .conversationInUse(let conversationId, let inThisProcess, let holders):
            let who =
                inThisProcess
                ? "another reply in this process"
                : holders.isEmpty
                    ? "another process (which may just have ended)" : "process " + holders.joined(separator: ", ")
            return
                "conversation \(conversationId) is being answered by \(who); one writer at a time: wait for that reply to end, then try again"
        }
    }
}

/// A conversation offered to the user when a reference is ambiguous.
public struct ConversationCandidate: Equatable, Sendable {
    /// The conversation's id.
    public var id: String
    /// The conversation's title.
    public var title: String

    /// Creates a candidate.
    public init(id: String, title: String) {
        self.id = id
        self.title = title
    }
}

extension String {
    /// The string with every run of whitespace (newlines included) collapsed to one space, for one-line SQL in messages.
    var trimmingWhitespace: String {
        split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
