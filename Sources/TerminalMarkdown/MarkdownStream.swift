import Markdown

/// The incremental core of streaming: turns a growing reply, given piece by piece, into lines to print once
/// (committed) and lines to show provisionally (the tail), without touching the terminal.
///
/// The stream holds only the text it has not committed (`receive(_:)` appends to it, and what commits is dropped),
/// so a reply is held once, by whoever saves it, however long it grows. Per update it parses only the uncommitted
/// text up to its last complete line, commits every top-level block
/// but the last (stopping at a block whose source lines are unknown: cmark-gfm 0.29 reports line 0 for a
/// paragraph split off by a table, which is then taken to end just before the table), and then re-parses the uncommitted remainder, partial line included, for the tail.
/// The last block is kept small: an open code fence commits its lines one by one, a list commits its finished
/// items, a table freezes its column widths after `BlockRenderer.tableWidthRows` rows and commits rows, a block
/// quote or list item past `containerThreshold` bytes streams its content through a nested stream (markers removed
/// where `MarkdownLine` reads them, output drawn with `BlockRenderer`'s quote bar or item prefix) that commits
/// its children the same way, and more than `fallbackLimit` bytes without a commit switch to line-by-line
/// streaming until the next blank line (each line rendered on its own, as the whole render shows a paragraph that
/// long).
/// Every parse goes through `LinkReferences`, which puts the committed definitions a text names in front of it.
/// Each snapshot therefore costs work proportional to the new text plus the current block.
struct MarkdownStream {
    /// Uncommitted bytes after which a block that cannot be committed is streamed as plain lines.
    static let fallbackLimit = MarkdownParser.longParagraphBytes
    /// Uncommitted bytes of a block quote or list item after which its children are streamed one by one.
    static let containerLimit = 2 * 1024
    /// The container limit this stream and its nested streams use; tests lower it to put every block quote and
    /// list item through a nested stream.
    var containerThreshold = containerLimit

    /// Renders committed and tail blocks; its width may change between snapshots.
    var renderer: BlockRenderer
    /// False for raw mode: complete lines are committed as they are.
    let rendersMarkdown: Bool
    /// True for the stream of a list item's content: a list follows the block before it without a blank line.
    var insideListItem = false
    /// True for the stream of a container's content: the late link definitions are listed by the outer stream.
    var isNested = false
    /// The containers this stream's text sits in; at `MarkdownParser.maximumNesting` its parses hold only leaf
    /// blocks, so no container opens a stream deeper than that.
    var nesting = 0

    /// UTF-8 offset in `buffer` (or, for a nested stream, in its container's content) up to which everything has
    /// been committed; each state's step advances it, and a container resets its stream's.
    var committedOffset = 0
    /// The reply's text from `droppedBytes` on: what has not been committed, and what was received after it.
    private var buffer = ""
    /// UTF-8 bytes of the reply committed and dropped from `buffer`.
    private var droppedBytes = 0
    /// The digest of the committed bytes, so a rewritten answer can be checked against them without keeping them.
    private var committedDigest = Hasher()
    private var hasOutput = false
    var continuation: ListContinuation?
    var state: State = .blocks
    /// A fence or container opened without printing a line yet (hidden fence markers, a container streamed child
    /// by child): whether a blank line goes before its first printed line; nil when nothing waits. A block that
    /// ends up printing nothing leaves no blank line, as in the whole render.
    var awaitedSeparator: Bool?
    /// The text indent of the footnote the last committed block defined or continued (see
    /// `BlockRenderer.footnoteIndent`); nil when it was anything else.
    var footnote: Int?
    /// Link reference definitions committed so far; every parse goes through it.
    var references = LinkReferences()
    /// The footnotes committed blocks referenced and defined.
    var footnotes = FootnoteLedger()

    struct ListContinuation {
        /// The number the next item of a committed ordered list gets; nil for bullet lists.
        var nextNumber: Int?
    }

    /// What the stream is in the middle of. Top-level blocks are handled here; each other state is a type of its
    /// own (`MarkdownStream+Fence`, `+Table`, `+PlainLines`, `+Container`) holding what it needs to go on (the
    /// fence and its highlighter, the frozen table widths, the container's stream), with its commit step, its end and
    /// its tail, which work on the stream that holds it.
    enum State {
        case blocks
        case fence(FenceState)
        case table(TableState)
        case plainLines(PlainLinesState)
        indirect case container(ContainerState)
    }

    /// Creates a stream that has committed nothing.
    init(renderer: BlockRenderer, rendersMarkdown: Bool) {
        self.renderer = renderer
        self.rendersMarkdown = rendersMarkdown
    }

    /// UTF-8 bytes of the reply received so far.
    var receivedBytes: Int { droppedBytes + buffer.utf8.count }

    /// UTF-8 offset in the reply up to which everything has been committed.
    var committedBytes: Int { droppedBytes + committedOffset }

    /// The bytes the tail lays out: those received and not committed, and inside a quote or list item those its own
    /// stream has not committed (the outer stream commits each of its lines into it).
    var tailBytes: Int { tailBytes(of: buffer) }

    /// `tailBytes` for a stream whose text is `text`.
    func tailBytes(of text: String) -> Int {
        guard case .container(let container) = state else { return text.utf8.count - committedOffset }
        return text.utf8.count - committedOffset + container.stream.tailBytes(of: container.inner)
    }

    /// Appends `piece` to the reply without rendering anything yet.
    mutating func receive(_ piece: String) {
        buffer += piece
    }

    /// Commits what the text received so far finishes and returns the lines to print once and the provisional tail;
    /// the committed text is dropped.
    ///
    /// With `shownRows`, only that many rows at the end of the tail are shown (a live area): an unfinished line of
    /// code far longer than they hold is previewed by its end (`FenceState.preview`). Without, the tail is the whole
    /// text's (line mode prints rows of it).
    mutating func update(showingRows shownRows: Int? = nil) -> (committed: [String], tail: [String]) {
        let committed = commit()
        return (committed, tail(showingRows: shownRows))
    }

    /// Commits what the text received so far finishes, as `update` does, without rendering the tail.
    mutating func commit() -> [String] {
        let committed = commitCompleteLines(buffer)
        dropCommitted()
        return committed
    }

    /// Commits everything received so far, as at the end of the reply; text received later starts afresh.
    mutating func finish() -> [String] {
        let output = finishing(buffer)
        dropCommitted()
        return output
    }

    /// Commits the reply up to UTF-8 offset `offset` as though it ended there (the text before a tool call ends a
    /// part); what was received after it stays uncommitted.
    mutating func finish(through offset: Int) -> [String] {
        let utf8 = buffer.utf8
        let split = utf8.index(utf8.startIndex, offsetBy: min(max(offset - droppedBytes, committedOffset), utf8.count))
        let rest = String(Substring(utf8[split...]))
        buffer = String(Substring(utf8[..<split]))
        let output = finish()
        buffer = rest
        return output
    }

    /// Replaces the reply by `text` (the server rewrote it); returns false, changing nothing, when `text` does not
    /// start with what has been committed.
    mutating func replace(with text: String) -> Bool {
        let utf8 = text.utf8
        guard utf8.count >= committedBytes else { return false }
        var digest = Hasher()
        var copy = text
        let length = committedBytes
        copy.withUTF8 { digest.combine(bytes: UnsafeRawBufferPointer($0.extracting(..<length))) }
        let committed = committedDigest
        guard digest.finalize() == committed.finalize() else { return false }
        buffer = String(Substring(utf8[utf8.index(utf8.startIndex, offsetBy: committedBytes)...]))
        committedOffset = 0
        return true
    }

    /// Shows the snapshot `text` of the whole reply so far: receives what it adds, then updates.
    ///
    /// `text` must extend the previous snapshot; a text shorter than what was received shows nothing new.
    mutating func update(_ text: String, showingRows shownRows: Int? = nil) -> (committed: [String], tail: [String]) {
        let committed = commit(text)
        return (committed, tail(showingRows: shownRows))
    }

    /// Receives what the snapshot `text` adds and commits, as `update(_:)` does, without rendering the tail.
    mutating func commit(_ text: String) -> [String] {
        receive(Self.text(text, after: receivedBytes))
        return commit()
    }

    /// Finishes with the final snapshot `text` of the whole reply: receives what it adds, then finishes.
    mutating func finish(_ text: String) -> [String] {
        receive(Self.text(text, after: receivedBytes))
        return finish()
    }

    private static func text(_ text: String, after offset: Int) -> String {
        let utf8 = text.utf8
        guard offset < utf8.count else { return "" }
        return String(Substring(utf8[utf8.index(utf8.startIndex, offsetBy: offset)...]))
    }

    /// Drops the committed text from `buffer`, folding it into the committed digest.
    private mutating func dropCommitted() {
        let count = min(committedOffset, buffer.utf8.count)
        guard count > 0 else { return }
        var digest = committedDigest
        var text = buffer
        text.withUTF8 { digest.combine(bytes: UnsafeRawBufferPointer($0.extracting(..<count))) }
        committedDigest = digest
        buffer = remainder(buffer)
        droppedBytes += count
        committedOffset = 0
    }

    /// Commits everything in `text` from `committedOffset` on, as at the end of the reply.
    mutating func finishing(_ text: String) -> [String] {
        var output = commitCompleteLines(text)
        var rest = remainder(text)
        if case .container(var container) = state { container.finish(rest: &rest, in: &self, into: &output) }
        if !rendersMarkdown {
            if !rest.isEmpty { output.append(UntrustedText.sanitize(rest)) }
        } else {
            switch state {
            case .blocks:
                let clean = UntrustedText.sanitize(rest)
                let blocks = references.parse(clean, depth: nesting)
                references.record(Substring(clean), blocks: blocks, through: Int.max)
                emit(blocks, into: &output)
            case .fence(let fence):
                fence.finish(rest: rest, in: &self, into: &output)
            case .table(let table):
                table.finish(rest: rest, in: &self, into: &output)
            case .plainLines(let plainLines):
                plainLines.finish(rest: rest, in: &self, into: &output)
            case .container:
                break
            }
            if !isNested {
                state = .blocks
                // The late definitions may define footnotes (a one-word note reads as a link definition).
                if let late = references.lateDefinitions() {
                    emit([SourceBlock(block: late, startLine: 0, endLine: 0)], into: &output)
                }
                if let undefined = footnotes.undefinedNote() {
                    emit([SourceBlock(block: undefined, startLine: 0, endLine: 0)], into: &output)
                }
            }
        }
        committedOffset = text.utf8.count
        state = .blocks
        return output
    }

    // MARK: Committing

    mutating func commitCompleteLines(_ text: String) -> [String] {
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
        case .plainLines(let plainLines):
            return plainLines.step(complete, in: &self, into: &output)
        case .fence(let fence):
            return fence.step(complete, in: &self, into: &output)
        case .table(let table):
            return table.step(complete, in: &self, into: &output)
        case .container(var container):
            return container.step(complete, in: &self, into: &output)
        case .blocks:
            return stepBlocks(complete, into: &output)
        }
    }

    private mutating func stepBlocks(_ complete: Substring, into output: inout [String]) -> Bool {
        let clean = UntrustedText.sanitize(String(complete))
        let blocks = references.parse(clean, depth: nesting)
        // Footnote references and definitions all hold a `^`: blocks of a text without one have none to record.
        let mayHoldFootnotes = ByteSearch.contains(UInt8(ascii: "^"), in: clean.utf8)
        guard !blocks.isEmpty else {
            // Definitions and blank lines only, which print nothing: all but the last definition are recorded and
            // dropped, so a reply of definitions is not parsed again whole at every step.
            let settled = references.recordSettledDefinitions(Substring(clean))
            committedOffset += byteOffset(afterLine: settled, in: complete)
            return settled > 0
        }
        var consumedLines = 0
        var index = 0
        while index < blocks.count - 1, let endLine = knownEndLine(of: index, in: blocks) {
            emit(CollectionOfOne(blocks[index]), into: &output, recordingFootnotes: mayHoldFootnotes)
            consumedLines = endLine
            index += 1
        }
        var changed = index > 0
        if index == blocks.count - 1, blocks[index].startLine != 0 || headerLine(of: blocks[index]) != nil {
            let last = blocks[index]
            switch last.block {
            case .list(let list) where list.items.count >= 2:
                let start = continuation?.nextNumber ?? list.start
                separate(&output, before: last.block)
                for (itemIndex, item) in list.items.dropLast().enumerated() {
                    output += renderer.listItemLines(item, number: start.map { $0 + itemIndex })
                    if mayHoldFootnotes { for block in item.blocks { footnotes.record(block) } }
                }
                continuation = ListContinuation(nextNumber: start.map { $0 + list.items.count - 1 })
                hasOutput = true
                let lastFinished = list.items[list.items.count - 2]
                let nextStart = list.items[list.items.count - 1].startLine
                consumedLines =
                    nextStart > lastFinished.startLine ? min(lastFinished.endLine, nextStart - 1) : lastFinished.endLine
                changed = true
            case .codeBlock(let info, _):
                if let fence = MarkdownLine(Substring(line(last.startLine, of: complete))).fence {
                    open(last.block)
                    appendOpened(renderer.codeFenceOpening(info: info), to: &output)
                    continuation = nil
                    state = .fence(FenceState(fence: fence, highlighter: renderer.codeHighlighter(info: info)))
                    consumedLines = last.startLine
                    changed = true
                }
            case .table(let table)
            where table.rows.count >= BlockRenderer.tableWidthRows && table.rowLines.allSatisfy({ $0 > 0 }):
                guard let header = headerLine(of: last) else { break }
                let widths = renderer.columnWidths(table)
                separate(&output, before: last.block)
                output += renderer.tableOpening(table, widths: widths)
                output += table.rows.flatMap { renderer.tableRow($0, table: table, widths: widths) }
                footnotes.record(last.block)
                hasOutput = true
                continuation = nil
                let prefix = line(header, of: complete) + "\n" + line(header + 1, of: complete) + "\n"
                state = .table(TableState(prefix: UntrustedText.sanitize(prefix), widths: widths))
                consumedLines = table.rowLines[table.rowLines.count - 1]
                changed = true
            case .blockQuote(let children) where containerBytes(from: last.startLine, in: complete) > containerThreshold:
                references.record(Substring(clean), blocks: blocks, through: last.startLine - 1)
                open(last.block)
                let alert = Alert(children)
                state = .container(.quote(alert: alert?.kind, in: self))
                if let alert { appendOpened([renderer.alertLabel(alert.kind)], to: &output) }
                continuation = nil
                consumedLines = last.startLine - 1
                changed = true
            case .list(let list)
            where list.items.count == 1
                && containerBytes(from: last.startLine, in: complete) > containerThreshold:
                references.record(Substring(clean), blocks: blocks, through: last.startLine - 1)
                guard let container = ContainerState.item(list, firstLine: line(last.startLine, of: complete), in: self)
                else { break }
                open(last.block)
                state = .container(container)
                continuation = nil
                consumedLines = last.startLine - 1
                changed = true
            default:
                break
            }
        }
        references.record(Substring(clean), blocks: blocks, through: consumedLines)
        let consumed = byteOffset(afterLine: consumedLines, in: complete)
        committedOffset += consumed
        if !changed && complete.utf8.count > Self.fallbackLimit {
            // Past the nesting limit the text parses to leaf blocks flattened out of deep containers: committed as
            // parsed, they read as in the whole render, where raw lines would show every marker.
            guard nesting >= MarkdownParser.maximumNesting else {
                // The lines stream one by one from here, from the block's first line (the blank lines before it
                // are its separation); they are a block of their own, as in the whole render.
                if let start = blocks.last?.startLine, start - 1 > consumedLines {
                    committedOffset += byteOffset(afterLine: start - 1, in: complete) - consumed
                }
                separate(&output, before: .paragraph([]))
                hasOutput = true
                continuation = nil
                state = .plainLines(PlainLinesState())
                return true
            }
            emit(blocks[index...], into: &output)
            references.record(Substring(clean), blocks: blocks, through: Int.max)
            committedOffset += complete.utf8.count - consumed
            return true
        }
        if case .container = state { return true }
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

    /// Appends top-level blocks to `output` with the blank lines between them; `recordingFootnotes` false skips
    /// looking for footnotes in blocks whose text has no `^`.
    mutating func emit(
        _ blocks: some Sequence<SourceBlock>, into output: inout [String], recordingFootnotes: Bool = true
    ) {
        for source in blocks {
            let lines: [String]
            if case .indentedCode = source.block, footnote != nil {
                lines = renderer.lines(for: source.block, afterFootnote: footnote)
            } else {
                lines = render(source.block)
            }
            footnote = renderer.footnoteIndent(after: source.block, previous: footnote)
            if recordingFootnotes { footnotes.record(source.block) }
            if lines.isEmpty { continue }
            separate(&output, before: source.block)
            if output.isEmpty { output = lines } else { output += lines }
            hasOutput = true
            continuation = nil
        }
    }

    /// Starts `block` (a fence or a streamed container) without printing: its blank line waits for its first line.
    mutating func open(_ block: MarkdownBlock) {
        awaitedSeparator = hasOutput && blankLine(before: block, continuing: continuation != nil)
    }

    /// Appends lines of the block `open` started, after the blank line that waited for them.
    mutating func appendOpened(_ lines: [String], to output: inout [String]) {
        guard !lines.isEmpty else { return }
        if awaitedSeparator == true { output.append("") }
        awaitedSeparator = nil
        hasOutput = true
        output += lines
    }

    /// Adds the blank line that goes before `block` when something was printed before it.
    private func separate(_ output: inout [String], before block: MarkdownBlock) {
        if hasOutput && blankLine(before: block, continuing: continuation != nil) { output.append("") }
    }

    /// Whether a blank line separates `block` from the block before it: not when it is a list that continues a
    /// committed one or that follows a block inside a list item.
    private func blankLine(before block: MarkdownBlock, continuing: Bool) -> Bool {
        guard case .list = block else { return true }
        return !continuing && !insideListItem
    }

    /// Renders a block, continuing a list whose first items were already committed.
    func render(_ block: MarkdownBlock) -> [String] {
        if let continuation, case .list(var list) = block {
            list.start = continuation.nextNumber
            return renderer.lines(for: .list(list))
        }
        return renderer.lines(for: block)
    }

    // MARK: Tail

    /// The provisional tail of what is received and not committed, as `update(showingRows:)` returns it.
    func tail(showingRows shownRows: Int? = nil) -> [String] { tail(rest: remainder(buffer), showingRows: shownRows) }

    /// The tail for the uncommitted text `rest`, after the blank line an opened block still waits for; `shownRows`
    /// as for `update(showingRows:)`.
    func tail(rest: String, showingRows shownRows: Int? = nil) -> [String] {
        let lines = tailLines(rest: rest, showingRows: shownRows)
        return awaitedSeparator == true && !lines.isEmpty ? [""] + lines : lines
    }

    private func tailLines(rest: String, showingRows shownRows: Int?) -> [String] {
        // Each state says what an empty `rest` shows: a quote or list item streaming through its own stream holds its
        // unfinished paragraph there, and a table's rows end with its bottom border, also when nothing of the next
        // line has arrived.
        guard rendersMarkdown else { return rest.isEmpty ? [] : [UntrustedText.sanitize(rest)] }
        switch state {
        case .plainLines(let plainLines):
            return plainLines.tail(rest: rest, of: self)
        case .fence(let fence):
            return fence.tail(rest: rest, of: self, showingRows: shownRows)
        case .table(let table):
            return table.tail(rest: rest, of: self)
        case .container(let container):
            return container.tail(rest: rest, of: self, showingRows: shownRows)
        case .blocks:
            guard !rest.isEmpty else { return [] }
            var output: [String] = []
            let clean = UntrustedText.sanitize(rest)
            var blocks = references.parse(clean, depth: nesting)
            if let last = blocks.last?.block, endsInProse(last) {
                let shown = UnfinishedMarkup.hidingUnclosed(clean)
                if shown.utf8.count != clean.utf8.count { blocks = references.parse(shown) }
            }
            for (index, block) in blocks.enumerated() {
                if index > 0
                    ? blankLine(before: block.block, continuing: false)
                    : hasOutput && blankLine(before: block.block, continuing: continuation != nil)
                {
                    output.append("")
                }
                output += index == 0 ? render(block.block) : renderer.lines(for: block.block)
            }
            return output
        }
    }

    /// Whether the last thing in `block` is prose (not code, HTML or a rule), where unclosed markup is hidden.
    private func endsInProse(_ block: MarkdownBlock) -> Bool {
        switch block {
        case .paragraph, .heading, .table: true
        case .codeBlock, .indentedCode, .html, .thematicBreak: false
        case .blockQuote(let children): children.last.map(endsInProse) ?? false
        case .list(let list): list.items.last?.blocks.last.map(endsInProse) ?? false
        }
    }

    /// The source lines of `text` this stream has not committed, an open container's markers put back; nil
    /// while a code fence, table or plain-lines fallback is open.
    func uncommittedLines(_ text: String) -> [String]? {
        switch state {
        case .blocks:
            return BlockRenderer.lines(of: remainder(text))
        case .container(let container):
            return container.uncommittedLines()
        case .fence, .table, .plainLines:
            return nil
        }
    }

    func remainder(_ text: String) -> String {
        let utf8 = text.utf8
        guard committedOffset < utf8.count else { return "" }
        return String(Substring(utf8[utf8.index(utf8.startIndex, offsetBy: committedOffset)...]))
    }

    // MARK: Lines

    /// The lines of `text`, which ends with a newline, without their newlines.
    func completeLines(_ text: Substring) -> [Substring] { Array(ByteSearch.lines(of: text).dropLast()) }

    /// The text of 1-based line `number` of `text`, without its newline.
    func line(_ number: Int, of text: Substring) -> String {
        guard number >= 1 else { return "" }
        return ByteSearch.withBytes(text.utf8) { bytes in
            let start = ByteSearch.offset(afterLines: number - 1, in: bytes)
            let rest = UnsafeBufferPointer(rebasing: bytes[start...])
            var end = rest.count
            ByteSearch.forEach(0x0A, in: rest) { position in
                end = position
                return false
            }
            return String(decoding: UnsafeBufferPointer(rebasing: rest[..<end]), as: UTF8.self)
        }
    }

    /// The number of bytes in the first `lines` lines of `text`, newlines included.
    func byteOffset(afterLine lines: Int, in text: Substring) -> Int {
        ByteSearch.offset(afterLines: lines, in: text.utf8)
    }

}
