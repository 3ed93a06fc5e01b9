import Markdown

/// A block quote or list item too long to hold back: its content streams through a nested stream, one narrower,
/// whose output gets the quote bar or the item's marker and indentation.
extension MarkdownStream {
    /// A block quote or list item whose content streams through a stream of its own, one narrower.
    struct Container {
        enum Kind {
            case quote
            /// A list item whose content is indented `contentIndent` columns in the source.
            /// `marker` is the bullet character, or the delimiter after an ordered item's number.
            case item(contentIndent: Int, number: Int?, marker: UInt8)
        }

        var kind: Kind
        var stream: MarkdownStream
        /// The container's lines its stream has not committed, quote markers or item indentation removed.
        var inner = ""
        /// The rendered list marker still to put in front of the item's first row (nil for quotes or once shown).
        var pendingMarker: String?
        /// Spaces in front of an item's later rows.
        var padding = ""
        /// The styled quote bar in front of a quote's rows.
        var bar = ""
        /// A task item's `[ ]` or `[x]` still to remove from the content's first line.
        var hasTaskBox = false
        /// An alert's `[!KIND]` line still to remove: the quote's first line.
        var skipsAlertMarker = false
        /// True until the item's first line (the one with the marker) has been read.
        var atFirstLine = true
    }

    /// Ends the open container at the end of the reply, taking `rest` into it when it continues it.
    mutating func finishContainer(_ container: Container, rest: inout String, into output: inout [String]) {
        var container = container
        state = .blocks
        let inner = rest.isEmpty ? nil : innerLine(Substring(rest), of: &container)
        if let inner {
            container.inner += inner
            rest = ""
        }
        close(container, before: inner == nil && !rest.isEmpty ? Substring(rest) : nil, into: &output)
    }

    /// The container's tail: its stream's, decorated, or, when `rest` ends the container, what follows it.
    func containerTail(_ container: Container, rest: String) -> [String] {
        var container = container
        let pending = container.stream.remainder(container.inner)
        guard let inner = innerLine(Substring(rest), of: &container) else {
            var output = decorate(container.stream.tail(rest: pending), &container)
            for (index, block) in references.parse(UntrustedText.sanitize(rest)).enumerated() {
                if index == 0, case .item(_, let number, let marker) = container.kind,
                    case .list(var list) = block.block,
                    MarkdownLine(Substring(rest)).listMarker?.marker == marker
                {
                    list.start = number.map { $0 + 1 }
                    output += renderer.lines(for: .list(list))
                } else {
                    output += [""] + renderer.lines(for: block.block)
                }
            }
            return output
        }
        return decorate(container.stream.tail(rest: pending + inner), &container)
    }

    /// The bytes of `complete` from 1-based line `start` on.
    func containerBytes(from start: Int, in complete: Substring) -> Int {
        complete.utf8.count - byteOffset(afterLine: start - 1, in: complete)
    }

    /// A stream for the content of a block quote, two columns narrower, that sees the definitions made so far; an
    /// alert's bar has its colour, and its marker line (the quote's first) is read as a blank line.
    func openQuote(alert: Alert.Kind?) -> Container {
        var inner = renderer
        inner.width = max(renderer.width - 2, 1)
        return Container(
            kind: .quote, stream: nested(inner, insideListItem: false), bar: renderer.quoteBar(alert),
            skipsAlertMarker: alert != nil)
    }

    /// A stream for the content of `list`'s one item, whose first source line is `firstLine`, narrower by the
    /// item's marker; nil when that line does not start with a list marker or has nothing after it.
    func openItem(_ list: MarkdownList, firstLine: String) -> Container? {
        guard let item = list.items.first, let marker = MarkdownLine(Substring(firstLine)).listMarker, !marker.isEmpty
        else {
            return nil
        }
        let number = continuation?.nextNumber ?? list.start
        let prefix = renderer.listItemPrefix(number: number, task: item.task)
        var inner = renderer
        inner.width = max(renderer.width - DisplayWidth.of(prefix.padding), 1)
        inner.depth += 1
        return Container(
            kind: .item(contentIndent: marker.contentIndent, number: number, marker: marker.marker),
            stream: nested(inner, insideListItem: true), pendingMarker: prefix.marker, padding: prefix.padding,
            hasTaskBox: item.task != nil)
    }

    func nested(_ renderer: BlockRenderer, insideListItem: Bool) -> MarkdownStream {
        var stream = MarkdownStream(renderer: renderer, rendersMarkdown: true)
        stream.insideListItem = insideListItem
        stream.containerThreshold = containerThreshold
        stream.isNested = true
        stream.nesting = nesting + 1
        stream.references = references
        stream.footnotes = footnotes
        return stream
    }

    /// Feeds the complete lines that continue the open container to its stream; closes it at the first that does not.
    mutating func stepContainer(_ complete: Substring, into output: inout [String]) -> Bool {
        guard case .container(var container) = state else { return false }
        state = .blocks  // so that `container` is the only owner of its buffers and grows in place
        var consumed = 0
        var ending: Substring?
        for line in completeLines(complete) {
            let source = MarkdownLine(line)
            if let start = contentStart(of: source, in: &container) {
                source.appendContent(from: start, to: &container.inner)
            } else {
                appendOpened(commitContent(of: &container), to: &output)
                guard let lazy = lazyLine(source, container) else {
                    ending = line
                    break
                }
                container.inner += "    "
                container.inner += lazy
            }
            container.inner += "\n"
            consumed += line.utf8.count + 1
        }
        appendOpened(commitContent(of: &container), to: &output)
        committedOffset += consumed
        guard let ending else {
            state = .container(container)
            return false
        }
        close(container, before: ending, into: &output)
        return true
    }

    /// Commits what the container's stream can and keeps only the content it has not committed, so the content
    /// held stays as small as the block in progress.
    func commitContent(of container: inout Container) -> [String] {
        let lines = container.stream.commitCompleteLines(container.inner)
        container.inner = container.stream.remainder(container.inner)
        container.stream.committedOffset = 0
        return decorate(lines, &container)
    }

    /// Flushes the container's stream and returns to top-level blocks; `next` is the line after the container.
    mutating func close(_ container: Container, before next: Substring?, into output: inout [String]) {
        var container = container
        appendOpened(decorate(container.stream.finishing(container.inner), &container), to: &output)
        if let marker = container.pendingMarker { appendOpened([marker], to: &output) }
        references = container.stream.references
        footnotes = container.stream.footnotes
        state = .blocks
        awaitedSeparator = nil
        continuation = nil
        if case .item(_, let number, let marker) = container.kind, let next,
            MarkdownLine(next).listMarker?.marker == marker
        {
            continuation = ListContinuation(nextNumber: number.map { $0 + 1 })
        }
    }

    /// `line` without the container's quote marker or item indentation, or nil when it ends the container.
    func innerLine(_ line: Substring, of container: inout Container) -> String? {
        let source = MarkdownLine(line)
        var text = ""
        if let start = contentStart(of: source, in: &container) {
            source.appendContent(from: start, to: &text)
        } else {
            guard let lazy = lazyLine(source, container) else { return nil }
            text = "    " + lazy
        }
        return text
    }

    /// Where `line`'s content starts once the container's quote marker or item indentation is removed (an alert's
    /// marker line and a blank item line read as empty, a task item's box is skipped); nil when it has neither.
    func contentStart(of line: MarkdownLine, in container: inout Container) -> MarkdownLine.Position? {
        switch container.kind {
        case .quote:
            guard let start = line.quoteContent else { return nil }
            if container.skipsAlertMarker {
                container.skipsAlertMarker = false
                var text = ""
                line.appendContent(from: start, to: &text)
                if Alert.kind(marker: text) != nil { return line.end }
            }
            return start
        case .item(let indent, _, _):
            let first = container.atFirstLine
            container.atFirstLine = false
            if !first && line.isBlank { return line.end }
            guard first || line.indentation >= indent else { return nil }
            let start = line.position(atColumn: indent)
            guard container.hasTaskBox else { return start }
            container.hasTaskBox = false
            return line.afterTaskBox(at: start) ?? start
        }
    }

    /// The text of `line` after its leading white space when it continues the paragraph the container's stream has
    /// open (a lazy continuation line), which goes into the stream indented four spaces so that the stream cannot
    /// take it for the start of a block; nil otherwise.
    func lazyLine(_ line: MarkdownLine, _ container: Container) -> Substring? {
        guard line.canContinueLazily, continuesLazily(line, container) else { return nil }
        return Substring(line.bytes[line.firstNonSpace.index...])
    }

    /// Whether `line` continues the paragraph the container's stream has open: parsed after the content not
    /// yet committed, put back into the quote or item (and any container open inside), it stays inside.
    func continuesLazily(_ line: MarkdownLine, _ container: Container) -> Bool {
        guard let content = container.stream.uncommittedLines(container.inner),
            content.contains(where: { !$0.allSatisfy { $0 == " " || $0 == "\t" } }),
            let rebuilt = rebuilt(content, in: container.kind)
        else { return false }
        let blocks = MarkdownParser.parse(
            UntrustedText.sanitize(rebuilt.joined(separator: "\n") + "\n" + Substring(line.bytes) + "\n"),
            depth: nesting)
        guard blocks.count == 1, blocks[0].endLine == rebuilt.count + 1 else { return false }
        if case .list(let list) = blocks[0].block { return list.items.count == 1 }
        return true
    }

    /// The source lines of `text` this stream has not committed, an open container's markers put back; nil
    /// while a code fence, table or plain-lines fallback is open.
    func uncommittedLines(_ text: String) -> [String]? {
        switch state {
        case .blocks:
            var lines = remainder(text).utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map {
                String(Substring($0))
            }
            if lines.last == "" { lines.removeLast() }
            return lines
        case .container(let container):
            return container.stream.uncommittedLines(container.inner).flatMap { rebuilt($0, in: container.kind) }
        case .fence, .table, .plainLines:
            return nil
        }
    }

    /// Content lines with a quote marker in front, or indented to the item's content column below a list marker
    /// standing alone two columns before it (the marker takes the place of an empty first line). A marker with
    /// text after it would not do: five spaces or more after it (indented code) put the content column one column
    /// after the marker.
    func rebuilt(_ lines: [String], in kind: Container.Kind) -> [String]? {
        switch kind {
        case .quote:
            return lines.map { "> " + $0 }
        case .item(let indent, _, _):
            let marker: String
            switch indent {
            case 2...5: marker = String(repeating: " ", count: indent - 2) + "-"
            case 6...11: marker = String(repeating: "1", count: indent - 2) + "."
            default: return nil
            }
            let later = String(repeating: " ", count: indent)
            let indented = lines.map { $0.isEmpty ? "" : later + $0 }
            return [marker] + (lines.first?.isEmpty == true ? indented.dropFirst() : indented[...])
        }
    }

    /// The container's stream output with the quote bar or the item's marker and indentation in front.
    func decorate(_ lines: [String], _ container: inout Container) -> [String] {
        lines.map { line in
            switch container.kind {
            case .quote:
                return line.isEmpty ? container.bar : container.bar + " " + line
            case .item:
                if let marker = container.pendingMarker {
                    container.pendingMarker = nil
                    return marker + " " + line
                }
                return line.isEmpty ? "" : container.padding + line
            }
        }
    }

}
