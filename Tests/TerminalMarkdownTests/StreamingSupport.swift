import TestSupport

@testable import TerminalMarkdown

/// Ways of cutting a reply into the growing snapshots a stream delivers.
enum Snapshots {
    /// Prefixes of `text` ending at random Unicode scalar boundaries, `1...maxStep` scalars apart.
    static func random(_ text: String, seed: UInt64, maxStep: Int = 48) -> [String] {
        var generator = SeededGenerator(seed: seed)
        let scalars = Array(text.unicodeScalars)
        var result: [String] = []
        var end = 0
        while end < scalars.count {
            end = min(end + Int.random(in: 1...maxStep, using: &generator), scalars.count)
            result.append(prefix(scalars, end))
        }
        return result
    }

    /// Every prefix of `text`, one Unicode scalar longer each time.
    static func scalarByScalar(_ text: String) -> [String] {
        let scalars = Array(text.unicodeScalars)
        return (1...max(scalars.count, 1)).map { prefix(scalars, min($0, scalars.count)) }
    }

    private static func prefix(_ scalars: [Unicode.Scalar], _ count: Int) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[..<count])
        return String(view)
    }
}

/// What the user sees after `output` is written to a terminal `width` columns wide.
func screenLines(_ output: String, width: Int, height: Int = 1000) -> [String] {
    var screen = TerminalScreen(width: width, height: height, widthOf: DisplayWidth.of)
    screen.apply(output)
    return screen.lines
}

/// Streams `snapshots` and then `final` through a `StreamRenderer` and returns everything it wrote.
func streamedOutput(
    _ snapshots: [String], final: String, capabilities: TerminalCapabilities,
    mode: MarkdownMode = .always
) -> String {
    let renderer = StreamRenderer(sink: StringSink(), capabilities: capabilities, mode: mode)
    for snapshot in snapshots { renderer.update(snapshot) }
    renderer.finish(final)
    return renderer.sink.output
}
