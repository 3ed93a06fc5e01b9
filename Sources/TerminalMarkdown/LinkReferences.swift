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
struct LinkReferences {
    /// The source of each recorded run of definition lines, in order.
    private var runs: [String] = []
    /// The run that defines each normalised label; the first definition wins, as in CommonMark.
    private var runOfLabel: [String: Int] = [:]
    /// The label as first written, for the list of late definitions.
    private var writtenLabel: [String: String] = [:]
    /// Labels that recorded blocks used while they were undefined.
    private var earlyUses: Set<String> = []
    /// Labels defined after a recorded use, in order of definition.
    private var late: [String] = []

    /// Parses sanitised `text`, which sits in `depth` containers, with the recorded definitions its brackets name in
    /// front, leaving a reference unresolved when its definition comes later in `text`.
    func parse(_ text: String, depth: Int = 0) -> [SourceBlock] {
        var blocks = MarkdownParser.parse(text, references: prefix(for: Substring(text)), depth: depth)
        guard Self.mayDefine(text.utf8) else { return blocks }
        let lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { Substring($0) }
        let scan = Scan(lines: lines, blocks: blocks)
        guard !scan.definitions.isEmpty else { return blocks }
        for index in blocks.indices where blocks[index].startLine > 0 {
            let start = blocks[index].startLine
            let end = max(blocks[index].endLine, start)
            let unknown = Set(scan.uses.filter { (start...end).contains($0.line) }.flatMap(\.labels))
                .filter { runOfLabel[$0] == nil }
            guard !unknown.isEmpty else { continue }
            let above = scan.definitions.filter { $0.line < start }
            let below = Set(scan.definitions.filter { $0.line > end }.map(\.label))
            let aboveLabels = Set(above.map(\.label))
            guard unknown.contains(where: { below.contains($0) && !aboveLabels.contains($0) }) else { continue }
            let source = lines[(start - 1)..<min(end, lines.count)].joined(separator: "\n")
            let aboveRuns = uniqueRuns(above.map(\.run)).map { scan.runs[$0] }
            let references = ([prefix(for: Substring(source))] + aboveRuns).filter { !$0.isEmpty }.joined(separator: "\n")
            let local = MarkdownParser.parse(source, references: references, firstLine: start, depth: depth)
            if local.count == 1 { blocks[index].block = local[0].block }
        }
        return blocks
    }

    /// Records the definitions and the uses on lines `1...lastLine` of `text`, which `blocks` came from
    /// (`parse(text)`); call it for each stretch of text as it is committed, in order.
    mutating func record(_ text: Substring, blocks: [SourceBlock], through lastLine: Int) {
        guard lastLine > 0, Self.mayReference(text.utf8) else { return }
        let lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { Substring($0) }
        let scan = Scan(lines: lines, blocks: blocks)
        var events: [(line: Int, definition: Scan.Definition?, uses: [String])] = []
        events += scan.definitions.filter { $0.line <= lastLine }.map { ($0.line, $0, []) }
        events += scan.uses.filter { $0.line <= lastLine }.map { ($0.line, nil, $0.labels) }
        var runIndex: [Int: Int] = [:]
        for event in events.sorted(by: { $0.line < $1.line }) {
            if let definition = event.definition {
                guard runOfLabel[definition.label] == nil else { continue }
                let index = runIndex[definition.run] ?? runs.count
                if index == runs.count {
                    runs.append(scan.runs[definition.run])
                    runIndex[definition.run] = index
                }
                runOfLabel[definition.label] = index
                writtenLabel[definition.label] = definition.written
                if earlyUses.contains(definition.label) { late.append(definition.label) }
            }
            for label in event.uses where runOfLabel[label] == nil { earlyUses.insert(label) }
        }
    }

    /// The labels used before their definition with the URLs they stand for, as one paragraph (`[1]: https://…`
    /// per line); nil when there are none.
    func lateDefinitions() -> MarkdownBlock? {
        var inlines: [MarkdownInline] = []
        for label in late {
            guard let run = runOfLabel[label], let written = writtenLabel[label] else { continue }
            let probe = MarkdownParser.parse("[\(written)]", references: runs[run])
            guard case .paragraph(let content)? = probe.first?.block,
                  case .link(let url, _)? = content.first(where: { if case .link = $0 { true } else { false } })
            else { continue }
            if !inlines.isEmpty { inlines.append(.lineBreak) }
            inlines += [.text("[\(written)]: "), .link(url: url, [.text(url)])]
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

    /// The recorded definition runs for the labels in brackets in `text`, one per line.
    private func prefix(for text: Substring) -> String {
        guard !runOfLabel.isEmpty else { return "" }
        let indices = uniqueRuns(Scan.bracketLabels(text).compactMap { runOfLabel[$0] })
        return indices.map { runs[$0] }.joined(separator: "\n")
    }

    private func uniqueRuns(_ indices: [Int]) -> [Int] {
        var seen: Set<Int> = []
        return indices.filter { seen.insert($0).inserted }
    }

    /// Where a parsed text defines and uses labels.
    private struct Scan {
        struct Definition {
            var line: Int
            var label: String
            var written: String
            /// Index into `runs`.
            var run: Int
        }

        var definitions: [Definition] = []
        var uses: [(line: Int, labels: [String])] = []
        /// The source of each run of definition lines.
        var runs: [String] = []

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
                        while end <= lines.count && owner[end] == index && Self.definedLabel(lines[end - 1]) != nil { end += 1 }
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

        private mutating func addRun(_ runLines: ArraySlice<Substring>, firstLine: Int) {
            let found = runLines.enumerated().compactMap { offset, text in
                Self.definedLabel(text).map { Definition(line: firstLine + offset, label: $0.0, written: $0.1, run: runs.count) }
            }
            guard !found.isEmpty else { return }
            definitions += found
            runs.append(runLines.joined(separator: "\n"))
        }

        /// Whether cmark-gfm counts the definitions that open a block's source as part of it (a paragraph, or a
        /// setext heading whose text follows them).
        private static func mayStartWithDefinitions(_ block: MarkdownBlock) -> Bool {
            switch block {
            case .paragraph, .heading: true
            default: false
            }
        }

        private static func isBlank(_ line: Substring) -> Bool { line.utf8.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D } }

        /// The normalised and the written label of a line that looks like `[label]: …` (at most three spaces in).
        static func definedLabel(_ line: Substring) -> (String, String)? {
            let bytes = Array(line.utf8)
            var index = 0
            while index < bytes.count && index < 3 && bytes[index] == 0x20 { index += 1 }
            guard index < bytes.count, bytes[index] == 0x5B else { return nil }
            guard let close = bytes[(index + 1)...].firstIndex(where: { $0 == 0x5D || $0 == 0x5B }), bytes[close] == 0x5D,
                  close + 1 < bytes.count, bytes[close + 1] == 0x3A, close > index + 1 else { return nil }
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
                       let label = normalised(String(decoding: utf8[start..<index], as: UTF8.self)) {
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
