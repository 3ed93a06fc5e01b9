/// GFM footnotes found in parsed inlines: `[^label]` references and `[^label]: text` definitions.
///
/// cmark-gfm's footnote extension drops a definition whose reference is not in the same parse and leaves a
/// reference without its definition as text, so a streamed reply, parsed a block at a time, would lose its notes.
/// Footnotes are therefore recognised per block here, which renders every block the same whether it is parsed
/// alone or with the whole reply; definitions stay where they are written (replies put them at the end).
package enum Footnotes {
    /// Longest label recognised, in characters.
    package static let maximumLabelLength = 32

    /// `inlines` with every `[^label]` in their text replaced by a `.footnoteReference`.
    package static func references(in inlines: [MarkdownInline]) -> [MarkdownInline] {
        guard
            inlines.contains(where: {
                if case .text(let text) = $0 {
                    return ByteSearch.contains(UInt8(ascii: "^"), in: text.utf8)
                } else {
                    return false
                }
            })
        else {
            return inlines
        }
        var output: [MarkdownInline] = []
        var pending = ""
        func flush() {
            guard !pending.isEmpty else { return }
            output += split(pending)
            pending = ""
        }
        for inline in inlines {
            if case .text(let text) = inline {
                pending += text
            } else {
                flush()
                output.append(inline)
            }
        }
        flush()
        return output
    }

    /// The definitions a paragraph consists of (`[^label]: text`, one per line that starts with a label), or nil
    /// when it does not start with one.
    package static func definitions(_ inlines: [MarkdownInline]) -> [(label: String, text: [MarkdownInline])]? {
        guard opensWithLabel(inlines) else { return nil }
        var definitions: [(label: String, text: [MarkdownInline])] = []
        var rest = references(in: inlines)[...]
        while let label = definitionStart(rest), case .text(let colon) = rest[rest.startIndex + 1] {
            rest = rest.dropFirst(2)
            let after = colon.dropFirst().drop { $0 == " " }
            var text: [MarkdownInline] = after.isEmpty ? [] : [.text(String(after))]
            while let inline = rest.first {
                if case .softBreak = inline, definitionStart(rest.dropFirst()) != nil {
                    rest = rest.dropFirst()
                    break
                }
                text.append(inline)
                rest = rest.dropFirst()
            }
            definitions.append((label, text))
        }
        return definitions.isEmpty ? nil : definitions
    }

    /// Whether the leading text of `inlines` starts with `[^`, however cmark-gfm split it into text nodes: a
    /// paragraph that does not cannot be a definition, and is not looked at further.
    private static func opensWithLabel(_ inlines: [MarkdownInline]) -> Bool {
        var expected = UInt8(ascii: "[")
        for inline in inlines {
            guard case .text(let text) = inline else { return false }
            for byte in text.utf8 {
                guard byte == expected else { return false }
                if expected == UInt8(ascii: "^") { return true }
                expected = UInt8(ascii: "^")
            }
        }
        return false
    }

    /// The label when `inlines` start with `[^label]:`.
    private static func definitionStart(_ inlines: ArraySlice<MarkdownInline>) -> String? {
        guard case .footnoteReference(let label)? = inlines.first, inlines.count >= 2,
            case .text(let text) = inlines[inlines.startIndex + 1], text.hasPrefix(":")
        else { return nil }
        return label
    }

    private static func split(_ text: String) -> [MarkdownInline] {
        var output: [MarkdownInline] = []
        var rest = Substring(text)
        while let open = rest.firstRange(of: "[^") {
            let afterOpen = rest[open.upperBound...]
            guard let close = afterOpen.firstIndex(of: "]") else { break }
            let label = afterOpen[..<close]
            if label.isEmpty || label.count > maximumLabelLength
                || label.contains(where: { $0 == " " || $0 == "[" || $0 == "\t" })
            {
                output.append(.text(String(rest[..<open.upperBound])))
                rest = afterOpen
                continue
            }
            if open.lowerBound > rest.startIndex { output.append(.text(String(rest[..<open.lowerBound]))) }
            output.append(.footnoteReference(String(label)))
            rest = afterOpen[afterOpen.index(after: close)...]
        }
        if !rest.isEmpty { output.append(.text(String(rest))) }
        return mergeText(output)
    }

    private static func mergeText(_ inlines: [MarkdownInline]) -> [MarkdownInline] {
        var output: [MarkdownInline] = []
        for inline in inlines {
            if case .text(let text) = inline, case .text(let previous)? = output.last {
                output[output.count - 1] = .text(previous + text)
            } else {
                output.append(inline)
            }
        }
        return output
    }
}

/// The footnote labels a reply's printed blocks referenced and defined, for the note after its last block that
/// names every reference no definition answered.
///
/// A streamed block is printed before the definitions further down have arrived, so a reference is marked as a
/// note (`¹`) when it is printed; where GFM would leave an undefined `[^1]` as text, the reader learns at the end
/// that it has no note. The whole render records the same blocks, so both renders end with the same note.
package struct FootnoteLedger {
    package init() {}

    /// Labels remembered at most, used and defined each; past it a label is not recorded.
    package static let maximumLabels = 10_000

    /// Referenced labels as first written, in order of first use.
    private var used: [String] = []
    /// Normalised forms (case-folded, as GFM matches labels) of `used` and of the defined labels.
    private var usedKeys: Set<String> = []
    private var definedKeys: Set<String> = []

    /// Records the references and definitions in `block`, which has been printed.
    package mutating func record(_ block: MarkdownBlock) {
        switch block {
        case .paragraph(let inlines):
            guard let definitions = Footnotes.definitions(inlines) else { return recordReferences(inlines) }
            for definition in definitions {
                if definedKeys.count < Self.maximumLabels { definedKeys.insert(definition.label.lowercased()) }
                recordReferences(definition.text)
            }
        case .heading(_, let inlines):
            recordReferences(inlines)
        case .blockQuote(let blocks):
            for child in blocks { record(child) }
        case .list(let list):
            for item in list.items {
                for child in item.blocks { record(child) }
            }
        case .table(let table):
            for cell in table.header { recordReferences(cell) }
            record(rows: table.rows)
        case .codeBlock, .indentedCode, .html, .thematicBreak:
            break
        }
    }

    /// Records the references in table rows printed on their own.
    package mutating func record(rows: [[[MarkdownInline]]]) {
        for cell in rows.joined() { recordReferences(cell) }
    }

    private mutating func recordReferences(_ inlines: [MarkdownInline]) {
        for inline in Footnotes.references(in: inlines) {
            switch inline {
            case .footnoteReference(let label):
                if usedKeys.count < Self.maximumLabels, usedKeys.insert(label.lowercased()).inserted {
                    used.append(label)
                }
            case .emphasis(let children), .strong(let children), .strikethrough(let children),
                .link(_, let children), .image(_, let children):
                recordReferences(children)
            case .text, .code, .html, .softBreak, .lineBreak:
                break
            }
        }
    }

    /// A paragraph naming the references that no definition answered, as written (`[^3]`); nil when there are none.
    package func undefinedNote() -> MarkdownBlock? {
        let undefined = used.filter { !definedKeys.contains($0.lowercased()) }
        guard !undefined.isEmpty else { return nil }
        var inlines: [MarkdownInline] = [.text(undefined.count == 1 ? "Footnote " : "Footnotes ")]
        for (index, label) in undefined.enumerated() {
            if index > 0 { inlines.append(.text(index == undefined.count - 1 ? " and " : ", ")) }
            inlines.append(.code("[^\(label)]"))
        }
        inlines.append(
            .text(undefined.count == 1 ? " is not defined in this reply." : " are not defined in this reply."))
        return .paragraph(inlines)
    }
}
