import Markdown

/// A table streaming row by row once its column widths are frozen (`BlockRenderer.tableWidthRows`): its header and
/// delimiter rows are parsed again in front of each remainder so that the rows keep their columns.
extension MarkdownStream {
    struct TableProgress {
        /// The header and delimiter rows, parsed again in front of each remainder so its rows keep their columns.
        var prefix: String
        var prefixLines: Int
        var widths: [Int]
    }

    /// Commits the rows `complete` finishes; the first line that is not a row ends the table.
    mutating func stepTable(_ complete: Substring, _ progress: TableProgress, into output: inout [String])
        -> Bool
    {
        let source = progress.prefix + UntrustedText.sanitize(String(complete))
        var blocks = references.parse(source, depth: nesting)
        guard case .table(let table)? = blocks.first?.block else {
            output += renderer.tableClosing(widths: progress.widths)
            state = .blocks
            return true
        }
        references.record(Substring(source), blocks: blocks, through: table.rowLines.last ?? 0)
        blocks.removeFirst()
        let ended = !blocks.isEmpty
        output += table.rows.flatMap { renderer.tableRow($0, table: table, widths: progress.widths) }
        footnotes.record(rows: table.rows)
        let consumed = table.rowLines.last.map { byteOffset(afterLine: $0 - progress.prefixLines, in: complete) } ?? 0
        committedOffset += consumed
        if ended {
            output += renderer.tableClosing(widths: progress.widths)
            state = .blocks
        }
        return ended || consumed > 0
    }

    /// Ends the table at the end of the reply: its last rows, its bottom border, and the blocks after it.
    mutating func finishTable(_ progress: TableProgress, rest: String, into output: inout [String]) {
        let source = progress.prefix + UntrustedText.sanitize(rest)
        var blocks = references.parse(source, depth: nesting)
        references.record(Substring(source), blocks: blocks, through: Int.max)
        if case .table(let table)? = blocks.first?.block {
            output += table.rows.flatMap { renderer.tableRow($0, table: table, widths: progress.widths) }
            footnotes.record(rows: table.rows)
            blocks.removeFirst()
        }
        output += renderer.tableClosing(widths: progress.widths)
        state = .blocks
        emit(blocks, into: &output)
    }

    /// The rows of `rest` and the bottom border, then what follows the table.
    func tableTail(_ progress: TableProgress, rest: String) -> [String] {
        var blocks = references.parse(progress.prefix + UntrustedText.sanitize(rest), depth: nesting)
        var output: [String] = []
        if case .table(let table)? = blocks.first?.block {
            output += table.rows.flatMap { renderer.tableRow($0, table: table, widths: progress.widths) }
            blocks.removeFirst()
        }
        output += renderer.tableClosing(widths: progress.widths)
        for block in blocks { output += [""] + renderer.lines(for: block.block) }
        return output
    }
}
