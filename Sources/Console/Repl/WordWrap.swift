import TerminalMarkdown

/// Plain text laid out to the terminal width: broken at spaces, continuation lines indented (a hanging indent).
///
/// Widths are display widths, so wide characters count twice; a word longer than a whole line is cut.
enum WordWrap {
    /// `text` broken into lines of at most `width` columns, the first starting after `firstUsed` columns already
    /// on its line, the others with `indent` spaces.
    static func lines(_ text: String, width: Int, indent: Int = 0, firstUsed: Int = 0) -> [String] {
        let indent = min(indent, max(width - 10, 0))
        let leading = text.prefix { $0 == " " }
        var lines: [String] = []
        var line = String(leading)
        var used = firstUsed + leading.count
        var lineHasWords = false
        // Runs of spaces inside a line are kept (empty words); a line break replaces one space.
        for word in text.dropFirst(leading.count).split(separator: " ", omittingEmptySubsequences: false).map(String.init) {
            var word = word
            var wordWidth = DisplayWidth.of(word)
            if lineHasWords, used + 1 + wordWidth > width, wordWidth > 0 {
                lines.append(line)
                line = String(repeating: " ", count: indent)
                used = indent
                lineHasWords = false
            }
            if lineHasWords {
                line += " "
                used += 1
            }
            while used + wordWidth > width, width - used > 0 {
                let (head, rest) = split(word, columns: width - used)
                lines.append(line + head)
                line = String(repeating: " ", count: indent)
                used = indent
                word = rest
                wordWidth = DisplayWidth.of(word)
            }
            line += word
            used += wordWidth
            lineHasWords = true
        }
        lines.append(line)
        return lines
    }

    /// One entry of a help list: `head` (indented by two) with `text` from `column` on, wrapped under it; the text
    /// starts on the next line when the head reaches the column. A narrow terminal gets the text indented by four.
    static func entry(head: String, text: String, column: Int, width: Int) -> [String] {
        let column = width - column < 30 ? 6 : column
        var result = lines(head, width: width, indent: 6, firstUsed: 2)
        result[0] = "  " + result[0]
        let body = lines(text, width: width, indent: column, firstUsed: column)
        let lastWidth = DisplayWidth.of(result[result.count - 1])
        if lastWidth + 2 <= column {
            result[result.count - 1] += String(repeating: " ", count: column - lastWidth) + body[0]
        } else {
            result.append(String(repeating: " ", count: column) + body[0])
        }
        return result + body.dropFirst()
    }

    /// `text` cut to at most `width` columns, ending in `…` when it was longer.
    static func truncated(_ text: String, width: Int) -> String {
        guard DisplayWidth.of(text) > width else { return text }
        return split(text, columns: max(width - 1, 1)).0 + "…"
    }

    /// `word` cut after at most `columns` columns (at least one character), and the rest.
    private static func split(_ word: String, columns: Int) -> (String, String) {
        var head = ""
        var used = 0
        for character in word {
            let characterWidth = DisplayWidth.of(character)
            if used + characterWidth > columns, !head.isEmpty { break }
            head.append(character)
            used += characterWidth
        }
        return (head, String(word.dropFirst(head.count)))
    }
}
