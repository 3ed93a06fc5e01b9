import Markdown

/// A code fence streaming line by line: each committed line is highlighted once, carrying the lexer state, and the
/// partial line is previewed without moving the lexer.
extension MarkdownStream {
    /// Commits the fence's complete lines; the closing fence returns the stream to blocks.
    mutating func stepFence(_ complete: Substring, _ fence: MarkdownLine.Fence, into output: inout [String]) -> Bool {
        var consumed = 0
        for line in completeLines(complete) {
            consumed += line.utf8.count + 1
            if isClosingFence(line, fence) {
                appendOpened(renderer.codeFenceClosing, to: &output)
                awaitedSeparator = nil
                state = .blocks
                break
            }
            appendOpened(renderer.codeLine(codeText(line, fence), highlighter: highlighter), to: &output)
        }
        committedOffset += consumed
        return true
    }

    /// Ends the fence at the end of the reply: its last, unterminated line and the closing the render adds.
    mutating func finishFence(_ fence: MarkdownLine.Fence, rest: String, into output: inout [String]) {
        if !rest.isEmpty && !isClosingFence(Substring(rest), fence) {
            appendOpened(renderer.codeLine(codeText(Substring(rest), fence), highlighter: highlighter), to: &output)
        }
        appendOpened(renderer.codeFenceClosing, to: &output)
        awaitedSeparator = nil
    }

    /// The partial line `rest`, highlighted without moving the lexer past it.
    func fenceTail(_ fence: MarkdownLine.Fence, rest: String) -> [String] {
        isClosingFence(Substring(rest), fence)
            ? [] : renderer.codeLine(codeText(Substring(rest), fence), highlighter: highlighter, advance: false)
    }

    /// Whether `line` closes `fence` once sanitised, as cmark-gfm sees it; only a line with a byte that sanitising
    /// could remove is sanitised.
    private func isClosingFence(_ line: Substring, _ fence: MarkdownLine.Fence) -> Bool {
        if MarkdownLine(line).closes(fence) { return true }
        guard line.utf8.contains(where: { $0 >= 0x80 || $0 == 0x0D }) else { return false }
        return MarkdownLine(Substring(UntrustedText.sanitize(String(line)))).closes(fence)
    }

    /// A code line, sanitised, without the columns of indentation the fence had (a tab reaching past them leaves
    /// spaces for its other columns).
    private func codeText(_ line: Substring, _ fence: MarkdownLine.Fence) -> String {
        let clean = UntrustedText.sanitize(String(line))
        let source = MarkdownLine(Substring(clean))
        let start = source.position(atColumn: min(fence.indent, source.indentation))
        if start.index == clean.startIndex { return clean }
        var text = ""
        source.appendText(from: start, to: &text)
        return text
    }
}
