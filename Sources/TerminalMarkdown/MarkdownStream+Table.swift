import Markdown

extension MarkdownStream {
    /// A table streaming row by row once its column widths are frozen (`BlockRenderer.tableWidthRows`): its header
    /// and delimiter rows are parsed again in front of each remainder so that the rows keep their columns.
    struct TableState {
        /// The header and delimiter rows (two lines), parsed again in front of each remainder so its rows keep their
        /// columns.
        let prefix: String
        let widths: [Int]

        /// Commits the rows `complete` finishes; the first line that is not a row ends the table.
        func step(_ complete: Substring, in stream: inout MarkdownStream, into output: inout [String]) -> Bool {
            let source = prefix + UntrustedText.sanitize(String(complete))
            var blocks = stream.references.parse(source, depth: stream.nesting)
            guard case .table(let table)? = blocks.first?.block else {
                output += stream.renderer.tableClosing(widths: widths)
                stream.state = .blocks
                return true
            }
            stream.references.record(Substring(source), blocks: blocks, through: table.rowLines.last ?? 0)
            blocks.removeFirst()
            let ended = !blocks.isEmpty
            output += rows(of: table, in: stream)
            stream.footnotes.record(rows: table.rows)
            let consumed =
                table.rowLines.last.map { stream.byteOffset(afterLine: $0 - 2, in: complete) } ?? 0
            stream.committedOffset += consumed
            if ended {
                output += stream.renderer.tableClosing(widths: widths)
                stream.state = .blocks
            }
            return ended || consumed > 0
        }

        /// Ends the table at the end of the reply: its last rows, its bottom border, and the blocks after it.
        func finish(rest: String, in stream: inout MarkdownStream, into output: inout [String]) {
            let source = prefix + UntrustedText.sanitize(rest)
            var blocks = stream.references.parse(source, depth: stream.nesting)
            stream.references.record(Substring(source), blocks: blocks, through: Int.max)
            if case .table(let table)? = blocks.first?.block {
                output += rows(of: table, in: stream)
                stream.footnotes.record(rows: table.rows)
                blocks.removeFirst()
            }
            output += stream.renderer.tableClosing(widths: widths)
            stream.state = .blocks
            stream.emit(blocks, into: &output)
        }

        /// The rows of `rest` and the bottom border, then what follows the table.
        func tail(rest: String, of stream: MarkdownStream) -> [String] {
            var blocks = stream.references.parse(prefix + UntrustedText.sanitize(rest), depth: stream.nesting)
            var output: [String] = []
            if case .table(let table)? = blocks.first?.block {
                output += rows(of: table, in: stream)
                blocks.removeFirst()
            }
            output += stream.renderer.tableClosing(widths: widths)
            for block in blocks { output += [""] + stream.renderer.lines(for: block.block) }
            return output
        }

        /// The lines of `table`'s body rows in the frozen column widths.
        private func rows(of table: MarkdownTable, in stream: MarkdownStream) -> [String] {
            table.rows.flatMap { stream.renderer.tableRow($0, table: table, widths: widths) }
        }
    }
}
