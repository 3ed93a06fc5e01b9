internal import CLibXML2
import Foundation

/// Turns an HTML page into readable text with libxml2's HTML parser (forgiving, as browsers are).
///
/// The title becomes a `# ` line; headings, paragraphs, list items, table rows and line breaks start new lines
/// (list items with `- `); `pre` keeps its spacing; scripts, styles, templates and other invisible elements are
/// dropped; elsewhere runs of white space become one space. The parser never fetches anything (`HTML_PARSE_NONET`);
/// `XML_PARSE_HUGE` lets elements nest 2048 deep rather than 256 (the input is already capped by ``ContextPage``).
enum ContextHTML {
    /// The readable text of `html`; `url` only names the document for the parser.
    static func text(_ html: [UInt8], url: String) -> String {
        guard !html.isEmpty else { return "" }
        let options = Int32(
            HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
                | HTML_PARSE_NONET.rawValue | HTML_PARSE_NOIMPLIED.rawValue | XML_PARSE_HUGE.rawValue)
        let document = html.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                htmlReadMemory($0, Int32(clamping: buffer.count), url, nil, options)
            }
        }
        guard let document else { return "" }
        defer { xmlFreeDoc(document) }
        var writer = TextWriter()
        // An explicit stack, so a page nested thousands of elements deep cannot exhaust the thread's stack.
        var stack: [(node: xmlNodePtr, leaving: Bool)] = siblings(document.pointee.children).reversed().map {
            ($0, false)
        }
        var preDepth = 0
        while let (node, leaving) = stack.popLast() {
            let name = node.pointee.name.map { String(cString: $0).lowercased() } ?? ""
            switch node.pointee.type {
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = node.pointee.content {
                    writer.add(String(cString: content), preformatted: preDepth > 0)
                }
            case XML_ELEMENT_NODE:
                if leaving {
                    if name == "pre" { preDepth -= 1 }
                    if blocks.contains(name) || name == "title" { writer.endBlock() }
                    continue
                }
                if hidden.contains(name) { continue }
                if name == "br" {
                    writer.newline()
                    continue
                }
                if blocks.contains(name) || name == "title" { writer.endBlock() }
                switch name {
                case "title": writer.add("# ", preformatted: true)
                case "h1", "h2", "h3", "h4", "h5", "h6":
                    writer.add(String(repeating: "#", count: Int(String(name.last!)) ?? 1) + " ", preformatted: true)
                case "li": writer.add("- ", preformatted: true)
                case "pre": preDepth += 1
                case "td", "th": writer.add(" ", preformatted: false)
                default: break
                }
                stack.append((node, true))
                stack += siblings(node.pointee.children).reversed().map { ($0, false) }
            default:
                continue
            }
        }
        return writer.finish()
    }

    /// `first` and the siblings after it, in order.
    private static func siblings(_ first: xmlNodePtr?) -> [xmlNodePtr] {
        var nodes: [xmlNodePtr] = []
        var node = first
        while let current = node {
            nodes.append(current)
            node = current.pointee.next
        }
        return nodes
    }

    /// Elements whose text is not shown on a page.
    private static let hidden: Set<String> = [
        "script", "style", "noscript", "template", "svg", "canvas", "iframe", "object",
        "meta", "link", "button", "select", "option", "nav"
    ]
    /// Elements that start and end a line.
    private static let blocks: Set<String> = [
        "p", "div", "section", "article", "main", "header", "footer", "aside", "blockquote", "pre", "figure",
        "figcaption",
        "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "dl", "dt", "dd", "table", "tr", "hr", "address",
        "details", "summary"
    ]

    /// Collects text with collapsed white space and at most one blank line between blocks.
    private struct TextWriter {
        private var lines: [String] = []
        private var line = ""
        private var pendingSpace = false

        mutating func add(_ text: String, preformatted: Bool) {
            if preformatted {
                for (index, part) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    if index > 0 { newline() }
                    line += part
                }
                return
            }
            for character in text {
                if character.isWhitespace {
                    pendingSpace = !line.isEmpty
                } else {
                    if pendingSpace { line.append(" ") }
                    pendingSpace = false
                    line.append(character)
                }
            }
        }

        mutating func newline() {
            lines.append(line)
            line = ""
            pendingSpace = false
        }

        mutating func endBlock() {
            if !line.trimmingCharacters(in: .whitespaces).isEmpty { newline() }
            line = ""
            pendingSpace = false
            if let last = lines.last, !last.isEmpty { lines.append("") }
        }

        mutating func finish() -> String {
            endBlock()
            var kept: [String] = []
            for text in lines.map({ $0.trimmingTrailingSpaces() }) where !(text.isEmpty && (kept.last?.isEmpty ?? true))
            {
                kept.append(text)
            }
            while kept.last?.isEmpty == true { kept.removeLast() }
            return kept.joined(separator: "\n")
        }
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last?.isWhitespace == true { text.removeLast() }
        return text
    }
}
