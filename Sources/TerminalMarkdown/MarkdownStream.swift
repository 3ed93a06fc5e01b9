/// The incremental core of streaming: turns successive snapshots of a growing reply into lines to print once
/// (committed) and lines to show provisionally (the tail), without touching the terminal.
///
/// Per snapshot it parses only the uncommitted text up to its last complete line, commits every top-level block
/// but the last (stopping at a block whose source lines are unknown: cmark-gfm 0.29 reports line 0 for a
/// paragraph split off by a table, which is then taken to end just before the table), and then re-parses the uncommitted remainder, partial line included, for the tail.
/// The last block is kept small: an open code fence commits its lines one by one, a list commits its finished
/// items, a table freezes its column widths after `BlockRenderer.tableWidthRows` rows and commits rows, and
/// more than `fallbackLimit` bytes without a commit switch to plain line streaming until the next blank line.
/// Every parse goes through `LinkReferences`, which puts the committed definitions a text names in front of it.
/// Each snapshot therefore costs work proportional to the new text plus the current block.
struct MarkdownStream {
    /// Uncommitted bytes after which a block that cannot be committed is streamed as plain lines.
    static let fallbackLimit = 64 * 1024

    /// Renders committed and tail blocks; its width may change between snapshots.
    var renderer: BlockRenderer
    /// False for raw mode: complete lines are committed as they are.
    let rendersMarkdown: Bool

    /// UTF-8 offset in the reply up to which everything has been committed.
    private(set) var committedOffset = 0
    private var hasOutput = false
    private var continuation: ListContinuation?
    private var state: State = .blocks
    /// Link reference definitions committed so far; every parse goes through it.
    private var references = LinkReferences()

    private struct ListContinuation {
        /// The number the next item of a committed ordered list gets; nil for bullet lists.
        var nextNumber: Int?
    }

    private struct Fence {
        var character: UInt8
        var length: Int
        var indent: Int
    }

    private struct TableProgress {
        /// The header and delimiter rows, parsed again in front of each remainder so its rows keep their columns.
        var prefix: String
        var prefixLines: Int
        var widths: [Int]
    }

    private enum State {
        case blocks
        case fence(Fence)
        case table(TableProgress)
        case plainLines
    }

    /// Creates a stream that has committed nothing.
    init(renderer: BlockRenderer, rendersMarkdown: Bool) {
        self.renderer = renderer
        self.rendersMarkdown = rendersMarkdown
    }

    /// Commits what `text` finishes and returns the lines to print once and the provisional tail.
    ///
    /// `text` must extend the previous snapshot; a text shorter than what was committed shows nothing new.
    mutating func update(_ text: String) -> (committed: [String], tail: [String]) {
        let committed = commitCompleteLines(text)
        return (committed, tail(text))
    }

    /// Commits everything in the final `text`; the stream is done afterwards.
    mutating func finish(_ text: String) -> [String] {
        var output = commitCompleteLines(text)
        let rest = remainder(text)
        if !rendersMarkdown {
            if !rest.isEmpty { output.append(UntrustedText.sanitize(rest)) }
        } else {
            switch state {
            case .blocks:
                let clean = UntrustedText.sanitize(rest)
                let blocks = references.parse(clean)
                references.record(Substring(clean), blocks: blocks, through: Int.max)
                emit(blocks, into: &output)
            case .fence(let fence):
                if !rest.isEmpty && !isClosingFence(Substring(rest), fence) {
                    output.append(renderer.codeLine(codeText(Substring(rest), fence)))
                }
                output.append(renderer.codeFenceClosing)
            case .table(let progress):
                let source = progress.prefix + UntrustedText.sanitize(rest)
                var blocks = references.parse(source)
                references.record(Substring(source), blocks: blocks, through: Int.max)
                if case .table(let table)? = blocks.first?.block {
                    output += table.rows.flatMap { renderer.tableRow($0, table: table, widths: progress.widths) }
                    blocks.removeFirst()
                }
                output.append(renderer.tableClosing(widths: progress.widths))
                state = .blocks
                emit(blocks, into: &output)
            case .plainLines:
                output += plainLines(rest)
            }
            if let late = references.lateDefinitions() {
                state = .blocks
                emit([SourceBlock(block: late, startLine: 0, endLine: 0)], into: &output)
            }
        }
        committedOffset = text.utf8.count
        state = .blocks
        return output
    }

    // MARK: Committing

    private mutating func commitCompleteLines(_ text: String) -> [String] {
        var output: [String] = []
        while committedOffset <= text.utf8.count {
            let utf8 = text.utf8
            let start = utf8.index(utf8.startIndex, offsetBy: committedOffset)
            guard let lastNewline = utf8[start...].lastIndex(of: 0x0A) else { break }
            let complete = Substring(utf8[start...lastNewline])
            if !step(complete, into: &output) { break }
        }
        return output
    }

    /// Commits what it can from `complete` (whole lines); returns whether to try again (something was consumed
    /// or the state changed), so the loop in `commitCompleteLines` always ends.
    private mutating func step(_ complete: Substring, into output: inout [String]) -> Bool {
        guard rendersMarkdown else {
            output += completeLines(complete).map { UntrustedText.sanitize(String($0)) }
            committedOffset += complete.utf8.count
            return false
        }
        switch state {
        case .plainLines:
            var consumed = 0
            for line in completeLines(complete) {
                consumed += line.utf8.count + 1
                if UntrustedText.sanitize(String(line)).allSatisfy({ $0 == " " || $0 == "\t" }) {
                    state = .blocks
                    break
                }
                output += plainLines(String(line))
            }
            committedOffset += consumed
            return true
        case .fence(let fence):
            var consumed = 0
            for line in completeLines(complete) {
                consumed += line.utf8.count + 1
                if isClosingFence(line, fence) {
                    output.append(renderer.codeFenceClosing)
                    state = .blocks
                    break
                }
                output.append(renderer.codeLine(codeText(line, fence)))
            }
            committedOffset += consumed
            return true
        case .table(let progress):
            return stepTable(complete, progress, into: &output)
        case .blocks:
            return stepBlocks(complete, into: &output)
        }
    }

    private mutating func stepBlocks(_ complete: Substring, into output: inout [String]) -> Bool {
        let clean = UntrustedText.sanitize(String(complete))
        let blocks = references.parse(clean)
        guard !blocks.isEmpty else { return false }
        var consumedLines = 0
        var index = 0
        while index < blocks.count - 1, let endLine = knownEndLine(of: index, in: blocks) {
            emit([blocks[index]], into: &output)
            consumedLines = endLine
            index += 1
        }
        var changed = index > 0
        if index == blocks.count - 1, blocks[index].startLine != 0 || headerLine(of: blocks[index]) != nil {
            let last = blocks[index]
            switch last.block {
            case .list(let list) where list.items.count >= 2:
                let start = continuation?.nextNumber ?? list.start
                separate(&output)
                for (itemIndex, item) in list.items.dropLast().enumerated() {
                    output += renderer.listItemLines(item, number: start.map { $0 + itemIndex })
                }
                continuation = ListContinuation(nextNumber: start.map { $0 + list.items.count - 1 })
                hasOutput = true
                let lastFinished = list.items[list.items.count - 2]
                let nextStart = list.items[list.items.count - 1].startLine
                consumedLines = nextStart > lastFinished.startLine ? min(lastFinished.endLine, nextStart - 1) : lastFinished.endLine
                changed = true
            case .codeBlock(let info, _):
                if let fence = openingFence(line(last.startLine, of: complete)) {
                    separate(&output)
                    output.append(renderer.codeFenceOpening(info: info))
                    hasOutput = true
                    continuation = nil
                    state = .fence(fence)
                    consumedLines = last.startLine
                    changed = true
                }
            case .table(let table) where table.rows.count >= BlockRenderer.tableWidthRows && table.rowLines.allSatisfy({ $0 > 0 }):
                guard let header = headerLine(of: last) else { break }
                let widths = renderer.columnWidths(table)
                separate(&output)
                output += renderer.tableOpening(table, widths: widths)
                output += table.rows.flatMap { renderer.tableRow($0, table: table, widths: widths) }
                hasOutput = true
                continuation = nil
                let prefix = line(header, of: complete) + "\n" + line(header + 1, of: complete) + "\n"
                state = .table(TableProgress(prefix: UntrustedText.sanitize(prefix), prefixLines: 2, widths: widths))
                consumedLines = table.rowLines[table.rowLines.count - 1]
                changed = true
            default:
                break
            }
        }
        references.record(Substring(clean), blocks: blocks, through: consumedLines)
        let consumed = byteOffset(afterLine: consumedLines, in: complete)
        committedOffset += consumed
        if !changed && complete.utf8.count > Self.fallbackLimit {
            state = .plainLines
            return true
        }
        return changed && consumed > 0
    }

    /// The last source line of `blocks[index]` (which has a successor), or nil when cmark-gfm did not say.
    ///
    /// cmark-gfm 0.29 reports a setext heading closed by a following line as ending on that line, and a paragraph
    /// that a table split off as starting and ending on line 0, so a block is taken to end before the line where
    /// the next one starts whenever that is earlier.
    private func knownEndLine(of index: Int, in blocks: [SourceBlock]) -> Int? {
        let next = blocks[index + 1]
        let nextStart = headerLine(of: next) ?? (next.startLine > 0 ? next.startLine : nil)
        if blocks[index].startLine != 0 { return min(blocks[index].endLine, (nextStart ?? Int.max) - 1) }
        guard let nextStart, nextStart > 1 else { return nil }
        return nextStart - 1
    }

    /// The source line of a table's header row. When a table splits off a paragraph, cmark-gfm 0.29 gives the
    /// table (and its header row) the paragraph's start line, but body rows and the table's end are right: the
    /// header is two lines above the first body row, or the line above the end when there is no body.
    private func headerLine(of source: SourceBlock) -> Int? {
        guard case .table(let table) = source.block else { return nil }
        let line = table.rowLines.first.map { $0 - 2 } ?? source.endLine - 1
        return line > 0 ? line : nil
    }

    private mutating func stepTable(_ complete: Substring, _ progress: TableProgress, into output: inout [String]) -> Bool {
        let source = progress.prefix + UntrustedText.sanitize(String(complete))
        var blocks = references.parse(source)
        guard case .table(let table)? = blocks.first?.block else {
            output.append(renderer.tableClosing(widths: progress.widths))
            state = .blocks
            return true
        }
        references.record(Substring(source), blocks: blocks, through: table.rowLines.last ?? 0)
        blocks.removeFirst()
        let ended = !blocks.isEmpty
        output += table.rows.flatMap { renderer.tableRow($0, table: table, widths: progress.widths) }
        let consumed = table.rowLines.last.map { byteOffset(afterLine: $0 - progress.prefixLines, in: complete) } ?? 0
        committedOffset += consumed
        if ended {
            output.append(renderer.tableClosing(widths: progress.widths))
            state = .blocks
        }
        return ended || consumed > 0
    }

    /// Appends top-level blocks to `output` with the blank lines between them.
    private mutating func emit(_ blocks: [SourceBlock], into output: inout [String]) {
        for source in blocks {
            separate(&output)
            output += render(source.block)
            hasOutput = true
            continuation = nil
        }
    }

    private func separate(_ output: inout [String]) {
        if hasOutput && continuation == nil { output.append("") }
    }

    /// Renders a block, continuing a list whose first items were already committed.
    private func render(_ block: MarkdownBlock) -> [String] {
        if let continuation, case .list(var list) = block {
            list.start = continuation.nextNumber
            return renderer.lines(for: .list(list))
        }
        return renderer.lines(for: block)
    }

    // MARK: Tail

    private func tail(_ text: String) -> [String] {
        let rest = remainder(text)
        guard !rest.isEmpty else { return [] }
        guard rendersMarkdown else { return [UntrustedText.sanitize(rest)] }
        switch state {
        case .plainLines:
            return plainLines(rest)
        case .fence(let fence):
            return isClosingFence(Substring(rest), fence) ? [] : [renderer.codeLine(codeText(Substring(rest), fence))]
        case .table(let progress):
            var blocks = references.parse(progress.prefix + UntrustedText.sanitize(rest))
            var output: [String] = []
            if case .table(let table)? = blocks.first?.block {
                output += table.rows.flatMap { renderer.tableRow($0, table: table, widths: progress.widths) }
                blocks.removeFirst()
            }
            output.append(renderer.tableClosing(widths: progress.widths))
            for block in blocks { output += [""] + renderer.lines(for: block.block) }
            return output
        case .blocks:
            var output: [String] = []
            for (index, block) in references.parse(UntrustedText.sanitize(rest)).enumerated() {
                if index > 0 || (hasOutput && continuation == nil) { output.append("") }
                output += index == 0 ? render(block.block) : renderer.lines(for: block.block)
            }
            return output
        }
    }

    private func remainder(_ text: String) -> String {
        let utf8 = text.utf8
        guard committedOffset < utf8.count else { return "" }
        return String(Substring(utf8[utf8.index(utf8.startIndex, offsetBy: committedOffset)...]))
    }

    private func plainLines(_ text: String) -> [String] {
        let wrapper = LineWrapper(level: .plain, hyperlinks: false)
        return wrapper.wrap([StyledRun(text: UntrustedText.sanitize(text), style: .plain)], width: renderer.width - 1).map(\.text)
    }

    // MARK: Lines and fences

    /// The lines of `text`, which ends with a newline, split at newline bytes (a Character split would keep
    /// `\r\n` together), without their newlines.
    private func completeLines(_ text: Substring) -> [Substring] {
        text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().map { Substring($0) }
    }

    /// The text of 1-based line `number` of `text`, without its newline.
    private func line(_ number: Int, of text: Substring) -> String {
        var current = 1
        var start = text.startIndex
        for index in text.utf8.indices where text.utf8[index] == 0x0A {
            if current == number { return String(text[start..<index]) }
            current += 1
            start = text.utf8.index(after: index)
        }
        return current == number ? String(text[start...]) : ""
    }

    /// The number of bytes in the first `lines` lines of `text`, newlines included.
    private func byteOffset(afterLine lines: Int, in text: Substring) -> Int {
        guard lines > 0 else { return 0 }
        var seen = 0
        var offset = 0
        for byte in text.utf8 {
            offset += 1
            if byte == 0x0A {
                seen += 1
                if seen == lines { return offset }
            }
        }
        return offset
    }

    private func openingFence(_ line: String) -> Fence? {
        let bytes = Array(line.utf8)
        var indent = 0
        while indent < bytes.count && bytes[indent] == 0x20 { indent += 1 }
        guard indent <= 3, indent < bytes.count, bytes[indent] == 0x60 || bytes[indent] == 0x7E else { return nil }
        let character = bytes[indent]
        var length = 0
        while indent + length < bytes.count && bytes[indent + length] == character { length += 1 }
        return length >= 3 ? Fence(character: character, length: length, indent: indent) : nil
    }

    private func isClosingFence(_ line: Substring, _ fence: Fence) -> Bool {
        let bytes = Array(UntrustedText.sanitize(String(line)).utf8)
        var index = 0
        while index < bytes.count && bytes[index] == 0x20 { index += 1 }
        guard index <= 3 else { return false }
        var length = 0
        while index < bytes.count && bytes[index] == fence.character {
            length += 1
            index += 1
        }
        guard length >= fence.length else { return false }
        return bytes[index...].allSatisfy { $0 == 0x20 || $0 == 0x09 }
    }

    /// A code line with the fence's indentation removed, sanitised.
    private func codeText(_ line: Substring, _ fence: Fence) -> String {
        var text = Substring(UntrustedText.sanitize(String(line)))
        var removed = 0
        while removed < fence.indent, text.first == " " {
            text = text.dropFirst()
            removed += 1
        }
        return String(text)
    }
}
