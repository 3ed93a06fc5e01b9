import Foundation

extension LibraryStore {
    /// Full-text search over conversation titles and message text: title matches first (best first), then
    /// messages of current branches (newest first, which stays fast however many messages match).
    ///
    /// Every word of `text` must match (diacritics and case ignored). The text is taken literally: FTS5
    /// operators and quotes in it are searched for as words, never interpreted, so user input cannot fail.
    public func search(_ text: String, limit: Int = 50, highlight: (open: String, close: String) = ("[", "]"))
        throws -> [SearchHit]
    {
        guard let query = Self.literalQuery(text), limit > 0 else { return [] }
        let open = SQLValue.text(highlight.open)
        let close = SQLValue.text(highlight.close)
        let count = SQLValue.integer(Int64(limit))
        let titles = try connection.query(
            """
            SELECT c.id, c.title, snippet(title_search, 0, ?, ?, '…', 16)
            FROM title_search CROSS JOIN conversations c ON c.seq = title_search.rowid
            WHERE title_search MATCH ? ORDER BY rank LIMIT ?
            """, [open, close, .text(query), count]
        ) { SearchHit(conversationId: $0.string(0), messageId: nil, title: $0.string(1), snippet: $0.string(2)) }
        guard titles.count < limit else { return titles }
        let messages = try connection.query(
            """
            SELECT m.conversation_id, m.id, c.title, snippet(message_search, 0, ?, ?, '…', 16)
            FROM message_search CROSS JOIN messages m ON m.seq = message_search.rowid
                CROSS JOIN conversations c ON c.id = m.conversation_id
            WHERE message_search MATCH ? AND m.on_branch ORDER BY message_search.rowid DESC LIMIT ?
            """, [open, close, .text(query), .integer(Int64(limit - titles.count))]
        ) {
            SearchHit(conversationId: $0.string(0), messageId: $0.string(1), title: $0.string(2), snippet: $0.string(3))
        }
        return titles + messages
    }

    /// Each whitespace-separated word as a quoted FTS5 string, all required; nil when no word has a letter or digit.
    static func literalQuery(_ text: String) -> String? {
        let words = text.split(whereSeparator: \.isWhitespace)
            .filter { $0.contains(where: { $0.isLetter || $0.isNumber }) }
            .map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        return words.isEmpty ? nil : words.joined(separator: " ")
    }
}
