/// The link reference definitions of a reply read so far, and a parse in which a reference only resolves against
/// definitions above its block.
///
/// cmark-gfm resolves a reference against definitions anywhere in the text it is given, so a block streamed before
/// its definition arrived would read differently from the same block parsed with the whole reply. The stream and
/// the whole render both parse through this type: a block that uses a label defined only further down is parsed
/// again without those later definitions, and a label used before its definition is listed with its URL after the
/// last block (`lateDefinitions`), so the URL still reaches the reader and both renders agree.
///
/// Definitions are found by line: a non-blank line that no top-level block covers (cmark-gfm drops paragraphs made
/// only of definitions) and the leading `[label]:` lines of a paragraph or setext heading.
package struct LinkReferences {
    package init() {}

    /// Labels recorded at most: past it, a later definition is not recorded, so the stream leaves a reference to
    /// it unresolved where the whole render, one parse, resolves it.
    package static let maximumLabels = 10_000
    /// Bytes of recorded definition source at most, under the same rule; a single definition longer than
    /// `maximumDefinitionBytes` is not recorded either. Together they bound what a parse puts in front of its text.
    package static let maximumRecordedBytes = 1 << 20
    package static let maximumDefinitionBytes = 16 << 10
    /// Bytes of definitions, beyond the text's own size, that one `parse` may put in front of its blocks' second
    /// parses; past it the remaining blocks keep their first parse.
    package static let reparseAllowance = 64 << 10

    /// A recorded definition: its source lines, and the label as first written, for the list of late definitions.
    private struct Recorded {
        /// Position among the recorded definitions, which keeps their order in a prefix.
        var order: Int
        var source: String
        var written: String
    }

    /// The recorded definition of each normalised label; the first definition wins, as in CommonMark.
    private var recorded: [String: Recorded] = [:]
    private var recordedBytes = 0
    /// Labels that recorded blocks used while they were undefined, at most `maximumLabels`.
    private var earlyUses: Set<String> = []
    /// Labels defined after a recorded use, in order of definition.
    private var late: [String] = []

    /// Parses sanitised `text`, which sits in `depth` containers, with the recorded definitions its brackets name in
    /// front, leaving a reference unresolved when its definition comes later in `text`.
    ///
    /// Linear in `text`: uses are matched to blocks by line, and a block parsed again gets in front of it only the
    /// definitions of its own labels.
    package func parse(_ text: String, depth: Int = 0) -> [SourceBlock] {
        var blocks = MarkdownParser.parse(text, references: prefix(for: Substring(text)), depth: depth)
        guard Self.mayDefine(text.utf8) else { return blocks }
        let lines = ByteSearch.lines(of: Substring(text))
        let scan = Scan(lines: lines, blocks: blocks)
        guard !scan.definitions.isEmpty else { return blocks }
        var first: [String: Int] = [:]
        var lastLine: [String: Int] = [:]
        for (index, definition) in scan.definitions.enumerated() {
            if first[definition.label] == nil { first[definition.label] = index }
            lastLine[definition.label] = definition.line
        }
        var allowance = text.utf8.count + Self.reparseAllowance
        var firstUse = 0
        for index in blocks.indices where blocks[index].startLine > 0 {
            let start = blocks[index].startLine
            let end = max(blocks[index].endLine, start)
            while firstUse < scan.uses.count && scan.uses[firstUse].line < start { firstUse += 1 }
            var unknown: [String] = []
            var seen: Set<String> = []
            for use in scan.uses[firstUse...].prefix(while: { $0.line <= end }) {
                unknown += use.labels.filter { recorded[$0] == nil && seen.insert($0).inserted }
            }
            let definedOnlyBelow = unknown.contains { label in
                guard let index = first[label], let last = lastLine[label] else { return false }
                return scan.definitions[index].line >= start && last > end
            }
            guard definedOnlyBelow else { continue }
            let source = lines[(start - 1)..<min(end, lines.count)].joined(separator: "\n")
            let above = unknown.compactMap { first[$0] }.filter { scan.definitions[$0].line < start }.sorted()
            let references = ([prefix(for: Substring(source))] + above.map { scan.definitions[$0].source })
                .filter { !$0.isEmpty }.joined(separator: "\n")
            allowance -= references.utf8.count + source.utf8.count
            guard allowance >= 0 else { break }
            let local = MarkdownParser.parse(source, references: references, firstLine: start, depth: depth)
            if local.count == 1 { blocks[index].block = local[0].block }
        }
        return blocks
    }

    /// Records the definitions and the uses on lines `1...lastLine` of `text`, which `blocks` came from
    /// (`parse(text)`); call it for each stretch of text as it is committed, in order.
    package mutating func record(_ text: Substring, blocks: [SourceBlock], through lastLine: Int) {
        guard lastLine > 0, Self.mayReference(text.utf8) else { return }
        record(Scan(lines: ByteSearch.lines(of: text), blocks: blocks), through: lastLine)
    }

    /// Records the definitions of `text`, in which no block starts (definitions and blank lines only), but the
    /// last, which may still go on (a title on the next line); returns the lines that covers, which the caller can
    /// commit: 0 until a second definition starts.
    package mutating func recordSettledDefinitions(_ text: Substring) -> Int {
        guard Self.mayReference(text.utf8) else { return 0 }
        let scan = Scan(lines: ByteSearch.lines(of: text), blocks: [])
        guard let last = scan.definitions.last?.line, last > 1 else { return 0 }
        record(scan, through: last - 1)
        return last - 1
    }

    private mutating func record(_ scan: Scan, through lastLine: Int) {
        var events: [(line: Int, definition: Scan.Definition?, uses: [String])] = []
        events += scan.definitions.filter { $0.line <= lastLine }.map { ($0.line, $0, []) }
        events += scan.uses.filter { $0.line <= lastLine }.map { ($0.line, nil, $0.labels) }
        for event in events.sorted(by: { $0.line < $1.line }) {
            if let definition = event.definition, recorded[definition.label] == nil,
                recorded.count < Self.maximumLabels, definition.source.utf8.count <= Self.maximumDefinitionBytes,
                recordedBytes + definition.source.utf8.count <= Self.maximumRecordedBytes
            {
                recorded[definition.label] = Recorded(
                    order: recorded.count, source: definition.source,
                    written: definition.written)
                recordedBytes += definition.source.utf8.count
                if earlyUses.contains(definition.label) { late.append(definition.label) }
            }
            for label in event.uses where recorded[label] == nil && earlyUses.count < Self.maximumLabels {
                earlyUses.insert(label)
            }
        }
    }

    /// The labels used before their definition with the URLs they stand for, as one paragraph (`[1]: https://…`
    /// per line); nil when there are none. One parse: each label's probe is a paragraph of its own, on line 2i + 1.
    package func lateDefinitions() -> MarkdownBlock? {
        let definitions = late.compactMap { recorded[$0] }
        guard !definitions.isEmpty else { return nil }
        let probes = MarkdownParser.parse(
            definitions.map { "[\($0.written)]" }.joined(separator: "\n\n"),
            references: definitions.map(\.source).joined(separator: "\n"))
        var urls: [Int: String] = [:]
        for probe in probes {
            guard case .paragraph(let content) = probe.block,
                case .link(let url, _)? = content.first(where: { if case .link = $0 { true } else { false } })
            else { continue }
            urls[probe.startLine] = url
        }
        var inlines: [MarkdownInline] = []
        for (index, definition) in definitions.enumerated() {
            guard let url = urls[2 * index + 1] else { continue }
            if !inlines.isEmpty { inlines.append(.lineBreak) }
            inlines += [.text("[\(definition.written)]: "), .link(url: url, [.text(url)])]
        }
        return inlines.isEmpty ? nil : .paragraph(inlines)
    }

    /// Whether `text` has a `]:`, without which it defines no label.
    private static func mayDefine(_ text: String.UTF8View) -> Bool {
        ByteSearch.withBytes(text) { bytes in
            var found = false
            ByteSearch.forEach(0x5D, in: bytes) { position in
                found = position + 1 < bytes.count && bytes[position + 1] == 0x3A
                return !found
            }
            return found
        }
    }

    /// Whether `text` has a `]` that does not open an inline link's `(`: without one it neither defines nor uses a
    /// label (`Scan.bracketLabels` skips `[text](url)`).
    private static func mayReference(_ text: Substring.UTF8View) -> Bool {
        ByteSearch.withBytes(text) { bytes in
            var found = false
            ByteSearch.forEach(0x5D, in: bytes) { position in
                found = position + 1 == bytes.count || bytes[position + 1] != 0x28
                return !found
            }
            return found
        }
    }

    /// The recorded definitions of the labels in brackets in `text`, one per line, in the order they were recorded.
    private func prefix(for text: Substring) -> String {
        guard !recorded.isEmpty else { return "" }
        var seen: Set<String> = []
        return Scan.bracketLabels(text).filter { seen.insert($0).inserted }.compactMap { recorded[$0] }
            .sorted { $0.order < $1.order }.map(\.source).joined(separator: "\n")
    }

    /// Where a parsed text defines and uses labels.
    private struct Scan {
        struct Definition {
            var line: Int
            var label: String
            var written: String
            /// Its lines: from `line` up to the next definition of its run, or the run's end.
            var source: String
        }

        var definitions: [Definition] = []
        /// In line order.
        var uses: [(line: Int, labels: [String])] = []

        init(lines: [Substring], blocks: [SourceBlock]) {
            var owner = [Int](repeating: -1, count: lines.count + 1)
            for (index, block) in blocks.enumerated() where block.startLine > 0 {
                for line in block.startLine...max(block.endLine, block.startLine) where line <= lines.count {
                    owner[line] = index
                }
            }
            var line = 1
            while line <= lines.count {
                let index = owner[line]
                if index < 0 {
                    var end = line
                    while end <= lines.count && owner[end] < 0 && !Self.isBlank(lines[end - 1]) { end += 1 }
                    if end == line {
                        line += 1
                        continue
                    }
                    addRun(lines[(line - 1)..<(end - 1)], firstLine: line)
                    line = end
                    continue
                }
                switch blocks[index].block {
                case .paragraph, .heading, .list, .blockQuote, .table:
                    if line == blocks[index].startLine, Self.mayStartWithDefinitions(blocks[index].block) {
                        var end = line
                        while end <= lines.count && owner[end] == index && Self.definedLabel(lines[end - 1]) != nil {
                            end += 1
                        }
                        if end > line { addRun(lines[(line - 1)..<(end - 1)], firstLine: line) }
                    }
                    let labels = Self.bracketLabels(lines[line - 1])
                    if !labels.isEmpty { uses.append((line, labels)) }
                default:
                    break
                }
                line += 1
            }
        }

        /// Adds the definitions of a run of definition lines; lines before its first definition define nothing.
        private mutating func addRun(_ runLines: ArraySlice<Substring>, firstLine: Int) {
            let starts = runLines.indices.compactMap { index in Self.definedLabel(runLines[index]).map { (index, $0) } }
            for (position, (index, label)) in starts.enumerated() {
                let end = position + 1 < starts.count ? starts[position + 1].0 : runLines.endIndex
                definitions.append(
                    Definition(
                        line: firstLine + index - runLines.startIndex, label: label.0,
                        written: label.1, source: runLines[index..<end].joined(separator: "\n")))
            }
        }

        /// Whether cmark-gfm counts the definitions that open a block's source as part of it (a paragraph, or a
        /// setext heading whose text follows them).
        private static func mayStartWithDefinitions(_ block: MarkdownBlock) -> Bool {
            switch block {
            case .paragraph, .heading: true
            default: false
            }
        }

        private static func isBlank(_ line: Substring) -> Bool {
            line.utf8.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
        }

        /// The normalised and the written label of a line that looks like `[label]: …` (at most three spaces in).
        static func definedLabel(_ line: Substring) -> (String, String)? {
            let bytes = Array(line.utf8)
            var index = 0
            while index < bytes.count && index < 3 && bytes[index] == 0x20 { index += 1 }
            guard index < bytes.count, bytes[index] == 0x5B else { return nil }
            guard let close = bytes[(index + 1)...].firstIndex(where: { $0 == 0x5D || $0 == 0x5B }),
                bytes[close] == 0x5D,
                close + 1 < bytes.count, bytes[close + 1] == 0x3A, close > index + 1
            else { return nil }
            let written = String(decoding: bytes[(index + 1)..<close], as: UTF8.self)
            guard let label = normalised(written) else { return nil }
            return (label, written)
        }

        /// The normalised labels of every `[…]` without nested brackets in `text`.
        static func bracketLabels(_ text: Substring) -> [String] {
            var labels: [String] = []
            var open: String.UTF8View.Index?
            let utf8 = text.utf8
            for index in utf8.indices {
                switch utf8[index] {
                case 0x5B: open = utf8.index(after: index)
                case 0x5D:
                    let next = utf8.index(after: index)
                    let inlineLink = next < utf8.endIndex && utf8[next] == 0x28
                    if let start = open, start < index, !inlineLink, utf8.distance(from: start, to: index) <= 999,
                        let label = normalised(String(decoding: utf8[start..<index], as: UTF8.self))
                    {
                        labels.append(label)
                    }
                    open = nil
                default: break
                }
            }
            return labels
        }

        /// A label as CommonMark matches it: case-folded, inner whitespace collapsed; nil when blank.
        private static func normalised(_ label: String) -> String? {
            let words = label.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
            return words.isEmpty ? nil : words.joined(separator: " ")
        }
    }
}
