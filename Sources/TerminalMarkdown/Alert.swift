import Markdown

/// A GitHub alert: a block quote whose first line is `[!NOTE]`, `[!TIP]`, `[!IMPORTANT]`, `[!WARNING]` or
/// `[!CAUTION]` (any case, alone on its line). It shows as a coloured title row and bar instead of the marker.
struct Alert {
    enum Kind: String, CaseIterable {
        case note, tip, important, warning, caution

        /// The title shown in place of the marker.
        var title: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }
    }

    var kind: Kind
    /// The quote's blocks without the marker line.
    var blocks: [MarkdownBlock]

    /// The alert a block quote with `children` is, or nil for a plain quote.
    init?(_ children: [MarkdownBlock]) {
        guard case .paragraph(let inlines)? = children.first, case .text(let first)? = inlines.first,
            let kind = Self.kind(marker: first)
        else { return nil }
        var rest = inlines.dropFirst()
        switch rest.first {
        case nil: break
        case .softBreak?, .lineBreak?: rest = rest.dropFirst()
        default: return nil
        }
        self.kind = kind
        blocks = (rest.isEmpty ? [] : [.paragraph(Array(rest))]) + children.dropFirst()
    }

    /// The kind a quote's first line names: `[!KIND]` with nothing else on it but spaces.
    static func kind(marker line: some StringProtocol) -> Kind? {
        // The first byte after blanks must be "[": a quote's first line is ruled out before it is read as characters.
        guard line.utf8.first(where: { $0 != 0x20 && $0 != 0x09 }) == UInt8(ascii: "[") else { return nil }
        let trimmed = line.trimmingPrefix(while: { $0 == " " || $0 == "\t" })
        guard trimmed.hasPrefix("[!"), let close = trimmed.firstIndex(of: "]"),
            trimmed[trimmed.index(after: close)...].allSatisfy({ $0 == " " || $0 == "\t" })
        else { return nil }
        return Kind(rawValue: trimmed[trimmed.index(trimmed.startIndex, offsetBy: 2)..<close].lowercased())
    }
}
