import Markdown

/// More than `fallbackLimit` bytes without a commit: the lines stream one by one until the next blank line, each
/// rendered on its own, as the whole render shows a paragraph too long to reflow.
extension MarkdownStream {
    /// Commits `complete`'s lines one by one; a blank line returns the stream to blocks.
    mutating func stepPlainLines(_ complete: Substring, into output: inout [String]) -> Bool {
        var consumed = 0
        for line in completeLines(complete) {
            consumed += line.utf8.count + 1
            if UntrustedText.sanitize(String(line)).allSatisfy({ $0 == " " || $0 == "\t" }) {
                state = .blocks
                break
            }
            output += commitPlainLines(String(line))
        }
        committedOffset += consumed
        return true
    }

    /// One source line of a block too long to hold back: with its inline Markdown rendered when the line alone is
    /// a paragraph (as a line of a paragraph too long to reflow is in the whole render), else as plain text.
    /// `plainLines(text)`, printed: their footnote references are recorded.
    mutating func commitPlainLines(_ text: String) -> [String] {
        let plain = plainLines(text)
        if let paragraph = plain.paragraph { footnotes.record(paragraph) }
        return plain.lines
    }

    /// The lines of `text`, a line of a block too long to parse whole: rendered as the paragraph it parses to, or
    /// wrapped as it is.
    func plainLines(_ text: String) -> (lines: [String], paragraph: MarkdownBlock?) {
        guard !text.isEmpty else { return ([], nil) }
        let clean = UntrustedText.sanitize(text)
        if rendersMarkdown, case let blocks = references.parse(clean, depth: nesting), blocks.count == 1,
            case .paragraph = blocks[0].block
        {
            return (renderer.lines(for: blocks[0].block), blocks[0].block)
        }
        let wrapper = LineWrapper(level: .plain, hyperlinks: false)
        return (wrapper.wrap([StyledRun(text: clean, style: .plain)], width: renderer.proseWidth).map(\.text), nil)
    }

}
