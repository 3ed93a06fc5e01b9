import Markdown

extension MarkdownStream {
    /// More than `fallbackLimit` bytes without a commit: the lines stream one by one until the next blank line,
    /// each rendered on its own, as the whole render shows a paragraph too long to reflow.
    struct PlainLinesState {
        /// Commits `complete`'s lines one by one; a blank line returns the stream to blocks.
        func step(_ complete: Substring, in stream: inout MarkdownStream, into output: inout [String]) -> Bool {
            var consumed = 0
            for line in stream.completeLines(complete) {
                consumed += line.utf8.count + 1
                if UntrustedText.sanitize(String(line)).allSatisfy({ $0 == " " || $0 == "\t" }) {
                    stream.state = .blocks
                    break
                }
                output += commit(String(line), in: &stream)
            }
            stream.committedOffset += consumed
            return true
        }

        /// Ends with the reply: its last, unterminated line.
        func finish(rest: String, in stream: inout MarkdownStream, into output: inout [String]) {
            output += commit(rest, in: &stream)
        }

        /// The partial line `rest`, as it will be committed.
        func tail(rest: String, of stream: MarkdownStream) -> [String] {
            Self.lines(rest, in: stream).lines
        }

        /// `lines(text)`, printed: their footnote references are recorded.
        private func commit(_ text: String, in stream: inout MarkdownStream) -> [String] {
            let plain = Self.lines(text, in: stream)
            if let paragraph = plain.paragraph { stream.footnotes.record(paragraph) }
            return plain.lines
        }

        /// The lines of `text`, one source line of a block too long to parse whole: with its inline Markdown
        /// rendered when the line alone is a paragraph (as a line of a paragraph too long to reflow is in the
        /// whole render), else wrapped as plain text.
        private static func lines(_ text: String, in stream: MarkdownStream) -> (
            lines: [String], paragraph: MarkdownBlock?
        ) {
            guard !text.isEmpty else { return ([], nil) }
            let clean = UntrustedText.sanitize(text)
            if stream.rendersMarkdown, case let blocks = stream.references.parse(clean, depth: stream.nesting),
                blocks.count == 1, case .paragraph = blocks[0].block
            {
                return (stream.renderer.lines(for: blocks[0].block), blocks[0].block)
            }
            let wrapper = LineWrapper(level: .plain, hyperlinks: false)
            return (
                wrapper.wrap([StyledRun(text: clean, style: .plain)], width: stream.renderer.proseWidth).map(\.text),
                nil
            )
        }
    }
}
