/// The code blocks of a Markdown text as cmark-gfm finds them: the one rule for what `/copy code N`, the editors'
/// rewrites (rpc's `codeBlocks`) and the renderer take for code, whatever the fence (backticks, tildes, longer
/// fences, indented code, code inside lists and quotes).
public enum CodeBlocks {
    /// The contents of every code block of `markdown`, in document order, each without its final newline.
    public static func find(in markdown: String) -> [String] {
        var found: [String] = []
        // Depth-first in document order with an explicit stack (nesting is bounded by the parser, but untrusted).
        var pending = Array(MarkdownParser.parse(UntrustedText.sanitize(markdown)).map(\.block).reversed())
        while let block = pending.popLast() {
            switch block {
            case .codeBlock(_, let literal), .indentedCode(let literal):
                found.append(literal.hasSuffix("\n") ? String(literal.dropLast()) : literal)
            case .blockQuote(let children):
                pending += children.reversed()
            case .list(let list):
                pending += list.items.flatMap(\.blocks).reversed()
            case .paragraph, .heading, .html, .thematicBreak, .table:
                break
            }
        }
        return found
    }
}
