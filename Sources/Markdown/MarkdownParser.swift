internal import CCmarkGFM
import Foundation
import SystemSupport

/// Parses GFM text (tables, strikethrough, autolinks, task lists) into top-level `SourceBlock`s.
///
/// cmark-gfm 0.29 keeps the inline special-character table in a process-wide global that attaching and finishing
/// a parser with the strikethrough extension modifies, so parses running on two threads at once lose `~~`:
/// every parse holds `lock`, which also guards the parse's memory (`CmarkArena`).
///
/// Containers (block quotes, lists) nested deeper than `maximumNesting` are flattened: their leaf blocks take their
/// place, and inline spans nested deeper become their plain text. Model output is untrusted, so neither the
/// conversion nor anything rendering its result recurses more than that many levels, however deep the input.
package enum MarkdownParser {
    private static let lock = NSLock()
    /// Containers, and inline spans, deeper than this are flattened.
    package static let maximumNesting = 32

    /// Parses `text`, which must already be sanitised, and frees the C tree before returning.
    ///
    /// `references` (sanitised link reference definitions, whole lines) is parsed in front of `text` so its
    /// definitions resolve there; blocks it produces are dropped. Line numbers count from `firstLine` for the
    /// first line of `text`. `depth` is the number of containers `text` sits in (a streamed container's content), so
    /// that flattening starts at the same depth as in the whole document.
    package static func parse(_ text: String, references: String = "", firstLine: Int = 1, depth: Int = 0)
        -> [SourceBlock]
    {
        lock.lock()
        defer { lock.unlock() }
        cmark_gfm_core_extensions_ensure_registered()
        let prefix = references.isEmpty ? "" : references + (references.hasSuffix("\n") ? "\n" : "\n\n")
        let prefixLines = prefix.utf8.count { $0 == 0x0A }
        let text = prefix + text
        // cmark-gfm's autolink extension links only at `www.`, `://` and `@`, and it costs a seventh of a parse (it
        // looks at every `w` and `:`): without `www.` and `@` the text is parsed without it, and again with it only
        // when a `://` turned up in a text node (not in a link's destination, where models put their URLs).
        let mayLinkWithoutScheme =
            ByteSearch.contains("www.", in: text.utf8) || ByteSearch.contains(UInt8(ascii: "@"), in: text.utf8)
        if !mayLinkWithoutScheme,
            let blocks = parse(text, prefixLines: prefixLines, firstLine: firstLine, depth: depth, autolinks: false)
        {
            return blocks
        }
        return parse(text, prefixLines: prefixLines, firstLine: firstLine, depth: depth, autolinks: true) ?? []
    }

    /// What opens a task item's box; a text without one needs no task-list extension.
    private static let taskBoxes: [StaticString] = ["[ ]", "[x]", "[X]"]

    /// `parse(_:references:firstLine:depth:)` of `text`, whose first `prefixLines` lines are the references, with or
    /// without the autolink extension; nil when, without it, a text node holds `://` (which it could link).
    private static func parse(_ text: String, prefixLines: Int, firstLine: Int, depth: Int, autolinks: Bool)
        -> [SourceBlock]?
    {
        // After the tree and the parser are freed: the blocks hold Swift copies of everything they took from it.
        defer { CmarkArena.reset() }
        let memory =
            text.utf8.count <= CmarkArena.largestParseBytes ? CmarkArena.memory : cmark_get_default_mem_allocator()
        guard let parser = cmark_parser_new_with_mem(CMARK_OPT_SOURCEPOS, memory) else { return [] }
        defer { cmark_parser_free(parser) }
        // Strikethrough acts only at a `~` and task lists only at a box: without one, a text is parsed without it.
        let extensions = [
            "table",
            ByteSearch.contains(UInt8(ascii: "~"), in: text.utf8) ? "strikethrough" : nil,
            autolinks ? "autolink" : nil,
            taskBoxes.contains { ByteSearch.contains($0, in: text.utf8) } ? "tasklist" : nil
        ]
        for case let name? in extensions {
            if let extensionHandle = cmark_find_syntax_extension(name) {
                cmark_parser_attach_syntax_extension(parser, extensionHandle)
            }
        }
        var text = text
        text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                cmark_parser_feed(parser, chars.baseAddress, chars.count)
            }
        }
        guard let document = cmark_parser_finish(parser) else { return [] }
        // In the arena the tree's memory goes at the reset: walking it to free each node would free nothing.
        defer { if memory != CmarkArena.memory { cmark_node_free(document) } }
        let conversion = Conversion(
            lines: text.utf8.count > longParagraphBytes ? SourceLines(text) : nil,
            sanitisesLiterals: ByteSearch.contains(UInt8(ascii: "&"), in: text.utf8)
                || UnsafeScalars.any(inUTF8: text.utf8, exceptNewlineAndTab: true),
            schemeSeparators: autolinks ? nil : SchemeSeparators())
        var blocks: [SourceBlock] = []
        forEachBlockNode(of: document, depth: depth) { node in
            if let block = conversion.block(node, depth: depth) {
                blocks.append(
                    SourceBlock(
                        block: block, startLine: Int(cmark_node_get_start_line(node)),
                        endLine: Int(cmark_node_get_end_line(node))))
            }
        }
        if conversion.schemeSeparators?.found == true { return nil }
        correctHTMLBlockEnds(&blocks, in: text)
        joinAdjacentHTMLBlocks(&blocks)
        let shift = firstLine - 1 - prefixLines
        guard prefixLines > 0 || shift != 0 else { return blocks }
        return blocks.filter { $0.startLine == 0 || $0.startLine > prefixLines }.map { $0.shifted(by: shift) }
    }

    /// Replaces the end line cmark-gfm 0.29 reports for HTML blocks of types 1–5 (comments, `<script>`, `<pre>`,
    /// `<style>`, `<?…?>`, `<!X…>`, CDATA), which is one line too early, by the line their end condition holds on.
    private static func correctHTMLBlockEnds(_ blocks: inout [SourceBlock], in text: String) {
        guard blocks.contains(where: { if case .html = $0.block { true } else { false } }) else { return }
        let lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false)
        for index in blocks.indices {
            guard case .html = blocks[index].block, blocks[index].startLine > 0,
                let end = htmlBlockEnd(startingOn: blocks[index].startLine, lines: lines)
            else { continue }
            blocks[index].endLine = end
        }
    }

    /// Joins HTML blocks that follow each other with no line between them (`<!DOCTYPE html>` then `<html>`, a comment
    /// then a `<div>`): cmark-gfm ends the first at its end condition, but the source runs on, and a blank line between
    /// them would show one that is not there.
    private static func joinAdjacentHTMLBlocks(_ blocks: inout [SourceBlock]) {
        var index = blocks.index(before: blocks.endIndex)
        while index > blocks.startIndex {
            let previous = blocks.index(before: index)
            if case .html(let second) = blocks[index].block, case .html(let first) = blocks[previous].block,
                blocks[previous].startLine > 0, blocks[index].startLine == blocks[previous].endLine + 1
            {
                blocks[previous].block = .html(first + (first.hasSuffix("\n") ? "" : "\n") + second)
                blocks[previous].endLine = blocks[index].endLine
                blocks.remove(at: index)
            }
            index = previous
        }
    }

    /// The 1-based line on which an HTML block of types 1–5 starting on line `start` (at most three spaces in)
    /// ends; nil for other types or when no line ends it. Tag and marker tests follow cmark-gfm 0.29, which
    /// does not know `<textarea>` and wants an uppercase letter after `<!`.
    package static func htmlBlockEnd(startingOn start: Int, lines: [Substring.UTF8View]) -> Int? {
        guard start <= lines.count else { return nil }
        let first = Array(lines[start - 1].drop { $0 == 0x20 }).map(asciiLowercase)
        let original = Array(lines[start - 1].drop { $0 == 0x20 })
        let marker: [UInt8]
        if let tag = ["script", "pre", "style"].first(where: { opensTag($0, first) }) {
            marker = Array("</\(tag)>".utf8)
        } else if first.starts(with: Array("<!--".utf8)) {
            marker = Array("-->".utf8)
        } else if first.starts(with: Array("<?".utf8)) {
            marker = Array("?>".utf8)
        } else if original.starts(with: Array("<![CDATA[".utf8)) {
            marker = Array("]]>".utf8)
        } else if original.count > 2, original.starts(with: Array("<!".utf8)), (0x41...0x5A).contains(original[2]) {
            marker = Array(">".utf8)
        } else {
            return nil
        }
        for number in start...lines.count where contains(lines[number - 1].map(asciiLowercase), marker) {
            return number
        }
        return nil
    }

    private static func opensTag(_ tag: String, _ line: [UInt8]) -> Bool {
        let prefix = Array("<\(tag)".utf8)
        guard line.starts(with: prefix) else { return false }
        guard line.count > prefix.count else { return true }
        return [0x20, 0x09, 0x3E].contains(line[prefix.count])
    }

    private static func asciiLowercase(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte + 0x20 : byte }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains {
            haystack[$0..<($0 + needle.count)].elementsEqual(needle)
        }
    }

    /// The children of a cmark node in order, read from the tree as they are iterated (no array is built).
    fileprivate struct Children: Sequence, IteratorProtocol {
        private var upcoming: OpaquePointer?

        init(of node: OpaquePointer) { upcoming = cmark_node_first_child(node) }

        /// The number of children left, counted along the siblings, so that `map` sizes its array once.
        var underestimatedCount: Int {
            var count = 0
            var node = upcoming
            while let current = node {
                count += 1
                node = cmark_node_next(current)
            }
            return count
        }

        mutating func next() -> OpaquePointer? {
            guard let current = upcoming else { return nil }
            upcoming = cmark_node_next(current)
            return current
        }
    }

    /// Passes the block nodes of `node`'s children, which sit `depth` containers deep, to `visit` in order: at the
    /// maximum, each container among them gives way to its leaf blocks.
    fileprivate static func forEachBlockNode(of node: OpaquePointer, depth: Int, _ visit: (OpaquePointer) -> Void) {
        for child in Children(of: node) {
            if depth >= maximumNesting && isContainer(child) {
                leaves(of: child).forEach(visit)
            } else {
                visit(child)
            }
        }
    }

    private static func isContainer(_ node: OpaquePointer) -> Bool {
        let type = cmark_node_get_type(node)
        return type == CMARK_NODE_BLOCK_QUOTE || type == CMARK_NODE_LIST || type == CMARK_NODE_ITEM
    }

    /// The leaf blocks inside container `node`, in document order, found without recursion.
    private static func leaves(of node: OpaquePointer) -> [OpaquePointer] {
        var result: [OpaquePointer] = []
        walk(node) { visited in
            if isContainer(visited) { return true }
            result.append(visited)
            return false
        }
        return result
    }

    /// Visits `node`'s descendants in document order with a loop, not recursion (depth is untrusted input);
    /// `visit` says whether to go on into the visited node's children.
    fileprivate static func walk(_ node: OpaquePointer, _ visit: (OpaquePointer) -> Bool) {
        var current = cmark_node_first_child(node)
        while let visited = current {
            if visit(visited), let first = cmark_node_first_child(visited) {
                current = first
                continue
            }
            var climbed: OpaquePointer? = visited
            current = nil
            while let step = climbed, step != node {
                if let next = cmark_node_next(step) {
                    current = next
                    break
                }
                climbed = cmark_node_parent(step)
            }
        }
    }

    /// Source bytes past which a paragraph keeps its source lines (its soft breaks become hard ones): the stream
    /// cannot hold a paragraph that long back until it ends, so it shows it line by line as it arrives
    /// (`MarkdownStream.fallbackLimit`), and the whole render does the same so that both read alike.
    package static let longParagraphBytes = 64 * 1024

    /// Where each source line of a parsed text starts, to measure a paragraph by the lines it spans.
    fileprivate struct SourceLines {
        private var starts: [Int] = [0]
        private let count: Int

        init(_ text: String) {
            count = text.utf8.count
            ByteSearch.withBytes(text.utf8) { bytes in
                ByteSearch.forEach(0x0A, in: bytes) { position in
                    starts.append(position + 1)
                    return true
                }
            }
        }

        /// The bytes of the whole lines `node` spans, a newline after each (also after a last line without one).
        func bytes(of node: OpaquePointer) -> Int {
            let first = Int(cmark_node_get_start_line(node))
            let last = Int(cmark_node_get_end_line(node))
            guard first >= 1, last >= first, first <= starts.count else { return 0 }
            let end = last < starts.count ? starts[last] : count + 1
            return end - starts[first - 1]
        }
    }
}

/// Whether a parse's text nodes hold `://` (see `MarkdownParser.parse`); one parse's, under its lock.
private final class SchemeSeparators {
    var found = false
}

/// The conversion of one parse's tree into Swift values.
///
/// cmark copies the parsed text's bytes into the tree, so a literal or URL of a sanitised text can hold a control
/// character only when cmark decoded a character reference (`&#27;`, `&#x202E;`) into it. Literals are therefore
/// sanitised again (`sanitisesLiterals`) only when the text has an `&`, or is not sanitised after all (a caller's
/// mistake must not reach the terminal).
private struct Conversion {
    /// Where the source lines start, for texts long enough to hold a paragraph past `longParagraphBytes`.
    let lines: MarkdownParser.SourceLines?
    let sanitisesLiterals: Bool
    /// For a parse without the autolink extension: notes a text node holding `://`.
    let schemeSeparators: SchemeSeparators?

    func block(_ node: OpaquePointer, depth: Int) -> MarkdownBlock? {
        let type = cmark_node_get_type(node)
        switch type {
        case CMARK_NODE_PARAGRAPH:
            let inlines = inlines(node, depth: 0)
            guard let lines, lines.bytes(of: node) > MarkdownParser.longParagraphBytes else {
                return .paragraph(inlines)
            }
            return .paragraph(inlines.map { if case .softBreak = $0 { .lineBreak } else { $0 } })
        case CMARK_NODE_HEADING:
            return .heading(level: Int(cmark_node_get_heading_level(node)), inlines(node, depth: 0))
        case CMARK_NODE_CODE_BLOCK:
            let info = cmark_node_get_fence_info(node).map { sanitized(String(cString: $0)) } ?? ""
            var length: Int32 = 0
            var offset: Int32 = 0
            var character: CChar = 0
            return cmark_node_get_fenced(node, &length, &offset, &character) == 0
                ? .indentedCode(literal(node)) : .codeBlock(info: info, literal: literal(node))
        case CMARK_NODE_HTML_BLOCK: return .html(literal(node))
        case CMARK_NODE_THEMATIC_BREAK: return .thematicBreak
        case CMARK_NODE_BLOCK_QUOTE: return .blockQuote(blocks(node, depth: depth + 1))
        case CMARK_NODE_LIST:
            let ordered = cmark_node_get_list_type(node) == CMARK_ORDERED_LIST
            let items = MarkdownParser.Children(of: node).map { item in
                let isTask = strcmp(cmark_node_get_type_string(item), "tasklist") == 0
                return MarkdownListItem(
                    task: isTask ? cmark_gfm_extensions_get_tasklist_item_checked(item) : nil,
                    blocks: blocks(item, depth: depth + 1),
                    startLine: Int(cmark_node_get_start_line(item)),
                    endLine: Int(cmark_node_get_end_line(item)))
            }
            return .list(MarkdownList(start: ordered ? Int(cmark_node_get_list_start(node)) : nil, items: items))
        case llmster_node_table():
            return .table(table(node))
        default:
            return nil
        }
    }

    private func table(_ node: OpaquePointer) -> MarkdownTable {
        let columns = Int(cmark_gfm_extensions_get_table_columns(node))
        var alignments = [MarkdownTable.Alignment](repeating: .none, count: columns)
        if let raw = cmark_gfm_extensions_get_table_alignments(node) {
            for column in 0..<columns {
                switch UInt8(raw[column]) {
                case UInt8(ascii: "l"): alignments[column] = .left
                case UInt8(ascii: "c"): alignments[column] = .center
                case UInt8(ascii: "r"): alignments[column] = .right
                default: break
                }
            }
        }
        var header: [[MarkdownInline]] = []
        var rows: [[[MarkdownInline]]] = []
        var rowLines: [Int] = []
        for row in MarkdownParser.Children(of: node) {
            var cells = MarkdownParser.Children(of: row).map { inlines($0, depth: 0) }
            while cells.count < columns { cells.append([]) }
            if cmark_gfm_extensions_get_table_row_is_header(row) != 0 {
                header = cells
            } else {
                rows.append(cells)
                rowLines.append(Int(cmark_node_get_start_line(row)))
            }
        }
        return MarkdownTable(alignments: alignments, header: header, rows: rows, rowLines: rowLines)
    }

    /// The inlines of `node`, which sits in `depth` inline spans: at the maximum, a span's plain text.
    private func inlines(_ node: OpaquePointer, depth: Int) -> [MarkdownInline] {
        if depth >= MarkdownParser.maximumNesting { return [.text(flatText(node))] }
        var inlines: [MarkdownInline] = []
        var count = 0
        var child = cmark_node_first_child(node)
        while let current = child {
            count += 1
            child = cmark_node_next(current)
        }
        inlines.reserveCapacity(count)
        child = cmark_node_first_child(node)
        while let current = child {
            if let inline = inline(current, depth: depth + 1) { inlines.append(inline) }
            child = cmark_node_next(current)
        }
        return inlines
    }

    private func inline(_ node: OpaquePointer, depth: Int) -> MarkdownInline? {
        let type = cmark_node_get_type(node)
        func inlines(_ node: OpaquePointer) -> [MarkdownInline] { self.inlines(node, depth: depth) }
        switch type {
        case CMARK_NODE_TEXT:
            let text = literal(node)
            if let schemeSeparators, !schemeSeparators.found, ByteSearch.contains("://", in: text.utf8) {
                schemeSeparators.found = true
            }
            return .text(text)
        case CMARK_NODE_CODE: return .code(literal(node))
        case CMARK_NODE_EMPH: return .emphasis(inlines(node))
        case CMARK_NODE_STRONG: return .strong(inlines(node))
        case CMARK_NODE_LINK: return .link(url: url(node), inlines(node))
        case CMARK_NODE_IMAGE: return .image(url: url(node), inlines(node))
        case CMARK_NODE_HTML_INLINE: return .html(literal(node))
        case CMARK_NODE_SOFTBREAK: return .softBreak
        case CMARK_NODE_LINEBREAK: return .lineBreak
        case llmster_node_strikethrough(): return .strikethrough(inlines(node))
        default: return nil
        }
    }

    private func url(_ node: OpaquePointer) -> String {
        cmark_node_get_url(node).map { sanitized(String(cString: $0)) } ?? ""
    }

    private func literal(_ node: OpaquePointer) -> String {
        cmark_node_get_literal(node).map { sanitized(String(cString: $0)) } ?? ""
    }

    /// `text` from the tree, sanitised again when it could hold a control character (see the type's note).
    private func sanitized(_ text: String) -> String {
        sanitisesLiterals ? UntrustedText.sanitize(text) : text
    }

    /// The blocks of a container's children, which sit `depth` containers deep (see `MarkdownParser.forEachBlockNode`).
    private func blocks(_ node: OpaquePointer, depth: Int) -> [MarkdownBlock] {
        var blocks: [MarkdownBlock] = []
        MarkdownParser.forEachBlockNode(of: node, depth: depth) { child in
            if let block = block(child, depth: depth) { blocks.append(block) }
        }
        return blocks
    }

    /// The plain text of inline `node`'s descendants, found without recursion: a span nested too deep.
    private func flatText(_ node: OpaquePointer) -> String {
        var text = ""
        MarkdownParser.walk(node) { visited in
            if cmark_node_first_child(visited) != nil { return true }
            let type = cmark_node_get_type(visited)
            text += type == CMARK_NODE_SOFTBREAK || type == CMARK_NODE_LINEBREAK ? " " : literal(visited)
            return false
        }
        return text
    }
}

extension SourceBlock {
    /// The block with every known (non-zero) source line moved by `lines`.
    package func shifted(by lines: Int) -> SourceBlock {
        func move(_ line: Int) -> Int { line > 0 ? max(line + lines, 0) : 0 }
        var block = self.block
        switch block {
        case .list(var list):
            for index in list.items.indices {
                list.items[index].startLine = move(list.items[index].startLine)
                list.items[index].endLine = move(list.items[index].endLine)
            }
            block = .list(list)
        case .table(var table):
            table.rowLines = table.rowLines.map(move)
            block = .table(table)
        default:
            break
        }
        return SourceBlock(block: block, startLine: move(startLine), endLine: move(endLine))
    }
}
