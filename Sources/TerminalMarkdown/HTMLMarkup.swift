/// The few HTML tags Markdown replies use for layout, read so the terminal shows their meaning instead of the tags.
///
/// Comments disappear, `<details>` and `</details>` go, `<summary>` becomes a `▸` heading line, `<br>` a line
/// break, `<kbd>` a key, and `<sub>`/`<sup>` sub- and superscript characters where Unicode has them. Any other
/// markup is shown as it is, dimmed.
enum HTMLMarkup {
    /// What an inline tag does.
    enum Tag: Equatable {
        case lineBreak, comment, keyOpen, keyClose, subscriptOpen, subscriptClose, superscriptOpen, superscriptClose
        /// Markup shown as text.
        case other
    }

    /// The meaning of one inline HTML node.
    static func tag(_ html: String) -> Tag {
        if html.hasPrefix("<!--") { return .comment }
        let name = html.lowercased().filter { !$0.isWhitespace && $0 != "/" }
        let closing = html.dropFirst().drop(while: \.isWhitespace).hasPrefix("/")
        switch name {
        case "<br>": return .lineBreak
        case "<kbd>": return closing ? .keyClose : .keyOpen
        case "<sub>": return closing ? .subscriptClose : .subscriptOpen
        case "<sup>": return closing ? .superscriptClose : .superscriptOpen
        default: return .other
        }
    }

    /// The lines of an HTML block to show: comments and `<details>` tags removed, `<summary>` lines as their text
    /// (the caller marks them with `isSummary`), lines left blank by the removal dropped.
    static func blockLines(_ literal: String) -> [(text: String, isSummary: Bool)] {
        var text = withoutComments(literal)
        for tag in ["<details>", "</details>", "<details open>"] { text = removing(tag, from: text) }
        var lines: [(text: String, isSummary: Bool)] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = String(line)
            var isSummary = false
            if line.lowercased().contains("<summary>") {
                line = removing("</summary>", from: removing("<summary>", from: line))
                isSummary = true
            }
            for tag in ["<br>", "<br/>", "<br />"] { line = removing(tag, from: line) }
            if line.allSatisfy(\.isWhitespace) { continue }
            lines.append((isSummary ? line.trimmingSpaces : line, isSummary))
        }
        return lines
    }

    /// `text` in subscript or superscript characters, or nil when one of its characters has no such form.
    static func script(_ text: String, superscript: Bool) -> String? {
        let map: [Character: Character] =
            superscript
            ? [
                "0": "⁰", "1": "¹", "2": "²", "3": "³", "4": "⁴", "5": "⁵", "6": "⁶", "7": "⁷", "8": "⁸", "9": "⁹",
                "+": "⁺", "-": "⁻", "=": "⁼", "(": "⁽", ")": "⁾", "n": "ⁿ", "i": "ⁱ"
            ]
            : [
                "0": "₀", "1": "₁", "2": "₂", "3": "₃", "4": "₄", "5": "₅", "6": "₆", "7": "₇", "8": "₈", "9": "₉",
                "+": "₊", "-": "₋", "=": "₌", "(": "₍", ")": "₎"
            ]
        var output = ""
        for character in text {
            guard let mapped = map[character] else { return nil }
            output.append(mapped)
        }
        return output
    }

    private static func withoutComments(_ text: String) -> String {
        var output = ""
        var rest = Substring(text)
        while let open = rest.firstRange(of: "<!--") {
            output += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].firstRange(of: "-->") else { return output }
            rest = rest[close.upperBound...]
        }
        return output + rest
    }

    /// `text` without any ASCII-case-insensitive occurrence of the lowercase ASCII `tag`.
    private static func removing(_ tag: String, from text: String) -> String {
        let bytes = Array(text.utf8)
        let target = Array(tag.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if index + target.count <= bytes.count,
                zip(bytes[index..<index + target.count], target).allSatisfy({
                    ($0 | ($0 >= 0x41 && $0 <= 0x5A ? 0x20 : 0)) == $1
                })
            {
                index += target.count
                continue
            }
            output.append(bytes[index])
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
