/// GFM footnotes found in parsed inlines: `[^label]` references and `[^label]: text` definitions.
///
/// cmark-gfm's footnote extension drops a definition whose reference is not in the same parse and leaves a
/// reference without its definition as text, so a streamed reply, parsed a block at a time, would lose its notes.
/// Footnotes are therefore recognised per block here, which renders every block the same whether it is parsed
/// alone or with the whole reply; definitions stay where they are written (replies put them at the end).
enum Footnotes {
    /// Longest label recognised, in characters.
    static let maximumLabelLength = 32

    /// `inlines` with every `[^label]` in their text replaced by a `.footnoteReference`.
    static func references(in inlines: [MarkdownInline]) -> [MarkdownInline] {
        guard inlines.contains(where: { if case .text(let text) = $0 { return ByteSearch.contains(UInt8(ascii: "^"), in: text.utf8) } else { return false } }) else {
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
    static func definitions(_ inlines: [MarkdownInline]) -> [(label: String, text: [MarkdownInline])]? {
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
        var matched = 0
        for inline in inlines {
            guard case .text(let text) = inline else { break }
            for byte in text.utf8.prefix(labelOpening.count - matched) {
                guard byte == labelOpening[matched] else { return false }
                matched += 1
            }
            if matched == labelOpening.count { return true }
        }
        return false
    }

    private static let labelOpening = Array("[^".utf8)

    /// The label when `inlines` start with `[^label]:`.
    private static func definitionStart(_ inlines: ArraySlice<MarkdownInline>) -> String? {
        guard case .footnoteReference(let label)? = inlines.first, inlines.count >= 2,
              case .text(let text) = inlines[inlines.startIndex + 1], text.hasPrefix(":") else { return nil }
        return label
    }

    private static func split(_ text: String) -> [MarkdownInline] {
        var output: [MarkdownInline] = []
        var rest = Substring(text)
        while let open = rest.firstRange(of: "[^") {
            let afterOpen = rest[open.upperBound...]
            guard let close = afterOpen.firstIndex(of: "]") else { break }
            let label = afterOpen[..<close]
            if label.isEmpty || label.count > maximumLabelLength || label.contains(where: { $0 == " " || $0 == "[" || $0 == "\t" }) {
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
