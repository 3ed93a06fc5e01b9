import Markdown

extension MarkdownStream {
    /// A block quote or list item too long to hold back: its content streams through a nested stream, one
    /// narrower, whose output gets the quote bar or the item's marker and indentation.
    struct ContainerState {
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

        /// A block quote in `outer`, its content two columns narrower and seeing the definitions made so far; an
        /// alert's bar has its colour, and its marker line (the quote's first) is read as a blank line.
        static func quote(alert: Alert.Kind?, in outer: MarkdownStream) -> ContainerState {
            var inner = outer.renderer
            inner.width = max(outer.renderer.width - 2, 1)
            return ContainerState(
                kind: .quote, stream: nested(in: outer, renderer: inner, insideListItem: false),
                bar: outer.renderer.quoteBar(alert), skipsAlertMarker: alert != nil)
        }

        /// The one item of `list` in `outer`, whose first source line is `firstLine`, its content narrower by the
        /// item's marker; nil when that line does not start with a list marker or has nothing after it.
        static func item(_ list: MarkdownList, firstLine: String, in outer: MarkdownStream) -> ContainerState? {
            guard let item = list.items.first, let marker = MarkdownLine(Substring(firstLine)).listMarker,
                !marker.isEmpty
            else {
                return nil
            }
            let number = outer.continuation?.nextNumber ?? list.start
            let prefix = outer.renderer.listItemPrefix(number: number, task: item.task)
            var inner = outer.renderer
            inner.width = max(outer.renderer.width - DisplayWidth.of(prefix.padding), 1)
            inner.depth += 1
            return ContainerState(
                kind: .item(contentIndent: marker.contentIndent, number: number, marker: marker.marker),
                stream: nested(in: outer, renderer: inner, insideListItem: true), pendingMarker: prefix.marker,
                padding: prefix.padding, hasTaskBox: item.task != nil)
        }

        private static func nested(in outer: MarkdownStream, renderer: BlockRenderer, insideListItem: Bool)
            -> MarkdownStream
        {
            var stream = MarkdownStream(renderer: renderer, rendersMarkdown: true)
            stream.insideListItem = insideListItem
            stream.containerThreshold = outer.containerThreshold
            stream.isNested = true
            stream.nesting = outer.nesting + 1
            stream.references = outer.references
            stream.footnotes = outer.footnotes
            return stream
        }

        /// Feeds the complete lines that continue the container to its stream; closes it at the first that does
        /// not. `outer` stops holding the container first (its state is `.blocks` meanwhile), so that this copy is
        /// the only owner of the buffers and they grow in place; it is put back while it stays open.
        mutating func step(_ complete: Substring, in outer: inout MarkdownStream, into output: inout [String])
            -> Bool
        {
            outer.state = .blocks
            var consumed = 0
            var ending: Substring?
            for line in outer.completeLines(complete) {
                let source = MarkdownLine(line)
                if let start = contentStart(of: source) {
                    source.appendContent(from: start, to: &inner)
                } else {
                    outer.appendOpened(commitContent(), to: &output)
                    guard let lazy = lazyLine(source, nesting: outer.nesting) else {
                        ending = line
                        break
                    }
                    inner += "    "
                    inner += lazy
                }
                inner += "\n"
                consumed += line.utf8.count + 1
            }
            outer.appendOpened(commitContent(), to: &output)
            outer.committedOffset += consumed
            guard let ending else {
                outer.state = .container(self)
                return false
            }
            close(before: ending, in: &outer, into: &output)
            return true
        }

        /// Ends the container at the end of the reply, taking `rest` into it when it continues it; what is left of
        /// `rest` follows the container as top-level blocks.
        mutating func finish(rest: inout String, in outer: inout MarkdownStream, into output: inout [String]) {
            outer.state = .blocks
            let line = rest.isEmpty ? nil : innerLine(Substring(rest), nesting: outer.nesting)
            if let line {
                inner += line
                rest = ""
            }
            close(before: line == nil && !rest.isEmpty ? Substring(rest) : nil, in: &outer, into: &output)
        }

        /// The container's tail: its stream's, decorated, or, when `rest` ends the container, what follows it.
        func tail(rest: String, of outer: MarkdownStream, showingRows shownRows: Int?) -> [String] {
            var container = self
            let pending = stream.remainder(inner)
            guard let line = container.innerLine(Substring(rest), nesting: outer.nesting) else {
                var output = container.decorate(stream.tail(rest: pending))
                for (index, block) in outer.references.parse(UntrustedText.sanitize(rest)).enumerated() {
                    if index == 0, case .item(_, let number, let marker) = kind, case .list(var list) = block.block,
                        MarkdownLine(Substring(rest)).listMarker?.marker == marker
                    {
                        list.start = number.map { $0 + 1 }
                        output += outer.renderer.lines(for: .list(list))
                    } else {
                        output += [""] + outer.renderer.lines(for: block.block)
                    }
                }
                return output
            }
            return container.decorate(stream.tail(rest: pending + line, showingRows: shownRows))
        }

        /// The source lines the container's stream has not committed, its markers (and those of any container
        /// open inside) put back; nil while a code fence, table or plain-lines fallback is open inside.
        func uncommittedLines() -> [String]? {
            stream.uncommittedLines(inner).flatMap(rebuilt)
        }

        /// Commits what the container's stream can and keeps only the content it has not committed, so the
        /// content held stays as small as the block in progress.
        private mutating func commitContent() -> [String] {
            let lines = stream.commitCompleteLines(inner)
            inner = stream.remainder(inner)
            stream.committedOffset = 0
            return decorate(lines)
        }

        /// Flushes the container's stream and returns `outer` to top-level blocks; `next` is the line after the
        /// container.
        private mutating func close(
            before next: Substring?, in outer: inout MarkdownStream, into output: inout [String]
        ) {
            outer.appendOpened(decorate(stream.finishing(inner)), to: &output)
            if let marker = pendingMarker { outer.appendOpened([marker], to: &output) }
            outer.references = stream.references
            outer.footnotes = stream.footnotes
            outer.state = .blocks
            outer.awaitedSeparator = nil
            outer.continuation = nil
            if case .item(_, let number, let marker) = kind, let next, MarkdownLine(next).listMarker?.marker == marker {
                outer.continuation = ListContinuation(nextNumber: number.map { $0 + 1 })
            }
        }

        /// `line` without the quote marker or item indentation, or nil when it ends the container; `nesting` is
        /// the outer stream's.
        private mutating func innerLine(_ line: Substring, nesting: Int) -> String? {
            let source = MarkdownLine(line)
            var text = ""
            if let start = contentStart(of: source) {
                source.appendContent(from: start, to: &text)
            } else {
                guard let lazy = lazyLine(source, nesting: nesting) else { return nil }
                text = "    " + lazy
            }
            return text
        }

        /// Where `line`'s content starts once the quote marker or item indentation is removed (an alert's marker
        /// line and a blank item line read as empty, a task item's box is skipped); nil when it has neither.
        private mutating func contentStart(of line: MarkdownLine) -> MarkdownLine.Position? {
            switch kind {
            case .quote:
                guard let start = line.quoteContent else { return nil }
                if skipsAlertMarker {
                    skipsAlertMarker = false
                    var text = ""
                    line.appendContent(from: start, to: &text)
                    if Alert.kind(marker: text) != nil { return line.end }
                }
                return start
            case .item(let indent, _, _):
                let first = atFirstLine
                atFirstLine = false
                if !first && line.isBlank { return line.end }
                guard first || line.indentation >= indent else { return nil }
                let start = line.position(atColumn: indent)
                guard hasTaskBox else { return start }
                hasTaskBox = false
                return line.afterTaskBox(at: start) ?? start
            }
        }

        /// The text of `line` after its leading white space when it continues the paragraph the container's stream
        /// has open (a lazy continuation line), which goes into the stream indented four spaces so that the stream
        /// cannot take it for the start of a block; nil otherwise.
        private func lazyLine(_ line: MarkdownLine, nesting: Int) -> Substring? {
            guard line.canContinueLazily, continuesLazily(line, nesting: nesting) else { return nil }
            return Substring(line.bytes[line.firstNonSpace.index...])
        }

        /// Whether `line` continues the paragraph the container's stream has open: parsed after the content not
        /// yet committed, put back into the quote or item (and any container open inside), it stays inside.
        private func continuesLazily(_ line: MarkdownLine, nesting: Int) -> Bool {
            guard let content = stream.uncommittedLines(inner),
                content.contains(where: { !$0.allSatisfy { $0 == " " || $0 == "\t" } }),
                let rebuilt = rebuilt(content)
            else { return false }
            let blocks = MarkdownParser.parse(
                UntrustedText.sanitize(rebuilt.joined(separator: "\n") + "\n" + Substring(line.bytes) + "\n"),
                depth: nesting)
            guard blocks.count == 1, blocks[0].endLine == rebuilt.count + 1 else { return false }
            if case .list(let list) = blocks[0].block { return list.items.count == 1 }
            return true
        }

        /// Content lines with a quote marker in front, or indented to the item's content column below a list
        /// marker standing alone two columns before it (the marker takes the place of an empty first line). A
        /// marker with text after it would not do: five spaces or more after it (indented code) put the content
        /// column one column after the marker.
        private func rebuilt(_ lines: [String]) -> [String]? {
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

        /// The stream's output with the quote bar or the item's marker and indentation in front.
        private mutating func decorate(_ lines: [String]) -> [String] {
            lines.map { line in
                switch kind {
                case .quote:
                    return line.isEmpty ? bar : bar + " " + line
                case .item:
                    if let marker = pendingMarker {
                        pendingMarker = nil
                        return marker + " " + line
                    }
                    return line.isEmpty ? "" : padding + line
                }
            }
        }
    }

    /// The bytes of `complete` from 1-based line `start` on: what a block quote or list item starting there holds.
    func containerBytes(from start: Int, in complete: Substring) -> Int {
        complete.utf8.count - byteOffset(afterLine: start - 1, in: complete)
    }
}
