import Library
import TerminalMarkdown

/// Search hits as `llmster search` and the REPL's `/search` show them: a table of id, title and match, fitted to
/// the width, the matched words between `‹ ›` (square brackets would read as Markdown link syntax in a snippet).
enum SearchListing {
    /// The markers put around matched words.
    static let highlight = (open: "‹", close: "›")

    /// The hits laid out to `width` columns (nil: whole lines, for pipes).
    static func table(_ hits: [SearchHit], width: Int?, fit: TextFit) -> String {
        var table = TextTable(columns: [
            .init("ID", priority: 0), .init("TITLE", minimumWidth: 12, priority: 2),
            .init("MATCH", minimumWidth: 20, priority: 1)
        ])
        for hit in hits {
            table.append([
                String(hit.conversationId.prefix(8)), hit.title,
                leadingToMatch(hit.snippet.replacingOccurrences(of: "\n", with: " "), fit: fit)
            ])
        }
        return table.text(width: width, fit: fit)
    }

    /// `snippet` with the text before its first match shortened to a few words after `fit`'s ellipsis, so that a
    /// column cut at its end still shows the match.
    static func leadingToMatch(_ snippet: String, context: Int = 12, fit: TextFit) -> String {
        guard let match = snippet.range(of: highlight.open) else { return snippet }
        let before = snippet[..<match.lowerBound]
        guard fit.columns(String(before)) > context + 1 else { return snippet }
        var start = before.endIndex
        var used = 0
        while start > before.startIndex {
            let previous = before.index(before: start)
            used += fit.columns(String(before[previous]))
            if used > context { break }
            start = previous
        }
        if let space = before[start...].firstIndex(of: " ") { start = before.index(after: space) }
        return fit.ellipsis + snippet[start...]
    }
}
