import Markdown

extension MarkdownStream {
    /// A code fence streaming line by line: each committed line is highlighted once, carrying the lexer state in
    /// its highlighter, and the partial line is previewed without moving the lexer.
    struct FenceState {
        /// The opening fence, which says what closes it and how far its lines are indented.
        let fence: MarkdownLine.Fence
        /// Colours the fence's lines, carrying the lexer state from one committed line to the next; nil for a
        /// language it does not know, or without colours.
        let highlighter: CodeHighlighter?

        /// Commits the fence's complete lines; the closing fence returns the stream to blocks.
        func step(_ complete: Substring, in stream: inout MarkdownStream, into output: inout [String]) -> Bool {
            var consumed = 0
            for line in stream.completeLines(complete) {
                consumed += line.utf8.count + 1
                if isClosing(line) {
                    close(&stream, into: &output)
                    stream.state = .blocks
                    break
                }
                stream.appendOpened(codeLine(line, of: stream), to: &output)
            }
            stream.committedOffset += consumed
            return true
        }

        /// Ends the fence at the end of the reply: its last, unterminated line and the closing the render adds.
        func finish(rest: String, in stream: inout MarkdownStream, into output: inout [String]) {
            if !rest.isEmpty && !isClosing(Substring(rest)) {
                stream.appendOpened(codeLine(Substring(rest), of: stream), to: &output)
            }
            close(&stream, into: &output)
        }

        /// The partial line `rest`, highlighted without moving the lexer past it; when only `shownRows` rows of the
        /// tail are shown, a line far longer than they hold is previewed by its end.
        func tail(rest: String, of stream: MarkdownStream, showingRows shownRows: Int?) -> [String] {
            guard !rest.isEmpty, !isClosing(Substring(rest)) else { return [] }
            let shown = shownRows.map { Self.preview(rest, screen: max($0, 1) * max(stream.renderer.width, 1)) } ?? rest
            guard shown.utf8.count == rest.utf8.count else {
                // The fence's indentation is at the line's start, not the cut's.
                return stream.renderer.codeLine(
                    UntrustedText.sanitize(shown), highlighter: highlighter, advance: false)
            }
            return codeLine(Substring(rest), of: stream, advance: false)
        }

        /// The end of the partial line `rest` when it is longer than three screens of `screen` bytes: from a cut that
        /// leaves two to three screens, before the next ASCII character (which starts a character, but after a rare
        /// prepended mark: the partial line holds no "\r\n") or else at a scalar's start; `rest` when it is shorter.
        ///
        /// So a tail costs what a screen shows rather than what the unfinished line holds: a 64 KiB line of code was
        /// highlighted and laid out whole at every update, which made streaming it quadratic. The cut moves a screen
        /// at a time, so between moves the rows shown stay put and only the last one grows; they are laid out from
        /// the cut, so their breaks (and, from a lexer state the line's start left, their colours) may differ from
        /// the committed line's, which is rendered whole. Code has no inline markup a cut could unbalance; prose has,
        /// and is not cut.
        static func preview(_ rest: String, screen: Int) -> String {
            let utf8 = rest.utf8
            guard utf8.count > 3 * screen else { return rest }
            let start = utf8.index(utf8.startIndex, offsetBy: (utf8.count - 2 * screen) / screen * screen)
            // A cut inside a character would pair a flag's halves wrongly or leave a combining mark alone.
            let beforeASCII = utf8[start...].prefix(64).firstIndex { $0 < 0x80 }
            let cut =
                beforeASCII
                ?? pairingFlags(utf8, at: utf8[start...].firstIndex { !UTF8.isContinuation($0) } ?? utf8.endIndex)
            return String(Substring(utf8[cut...]))
        }

        /// `cut`, or the scalar before it when it falls after an odd number of regional indicators (U+1F1E6…U+1F1FF,
        /// `F0 9F 87 A6…BF`), counting back at most 1,024: a flag is a pair of them, and a cut inside one would pair
        /// every later flag's halves wrongly.
        private static func pairingFlags(_ utf8: String.UTF8View, at cut: String.Index) -> String.Index {
            func isIndicator(_ index: String.Index) -> Bool {
                let bytes = utf8[index...].prefix(4)
                return bytes.elementsEqual([0xF0, 0x9F, 0x87, bytes.last ?? 0]) && (0xA6...0xBF).contains(bytes.last!)
            }
            guard cut < utf8.endIndex, isIndicator(cut) else { return cut }
            var before = 0
            var index = cut
            while before < 1024, utf8.distance(from: utf8.startIndex, to: index) >= 4 {
                let previous = utf8.index(index, offsetBy: -4)
                guard isIndicator(previous) else { break }
                before += 1
                index = previous
            }
            return before % 2 == 1 ? utf8.index(cut, offsetBy: -4) : cut
        }

        /// `line` rendered as code; `advance` false previews it without moving the lexer.
        private func codeLine(_ line: Substring, of stream: MarkdownStream, advance: Bool = true) -> [String] {
            stream.renderer.codeLine(codeText(line), highlighter: highlighter, advance: advance)
        }

        /// Prints the closing the whole render shows (nothing with fences hidden).
        private func close(_ stream: inout MarkdownStream, into output: inout [String]) {
            stream.appendOpened(stream.renderer.codeFenceClosing, to: &output)
            stream.awaitedSeparator = nil
        }

        /// Whether `line` closes the fence once sanitised, as cmark-gfm sees it; only a line with a byte that
        /// sanitising could remove is sanitised, and not one holding printable ASCII besides the fence's character,
        /// which sanitising keeps (so an unfinished non-ASCII code line is not copied whole at each update).
        private func isClosing(_ line: Substring) -> Bool {
            if MarkdownLine(line).closes(fence) { return true }
            guard line.utf8.contains(where: { $0 >= 0x80 || $0 == 0x0D }),
                !line.utf8.contains(where: { $0 > 0x20 && $0 < 0x7F && $0 != fence.character })
            else { return false }
            return MarkdownLine(Substring(UntrustedText.sanitize(String(line)))).closes(fence)
        }

        /// A code line, sanitised, without the columns of indentation the fence had (a tab reaching past them
        /// leaves spaces for its other columns).
        private func codeText(_ line: Substring) -> String {
            let clean = UntrustedText.sanitize(String(line))
            let source = MarkdownLine(Substring(clean))
            let start = source.position(atColumn: min(fence.indent, source.indentation))
            if start.index == clean.startIndex { return clean }
            var text = ""
            source.appendText(from: start, to: &text)
            return text
        }
    }
}
