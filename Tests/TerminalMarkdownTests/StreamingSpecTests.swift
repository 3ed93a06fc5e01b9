import Foundation
import Testing
import TestSupport
@testable import TerminalMarkdown

/// The examples of the GFM spec (Fixtures/gfm-spec-examples.txt), read once.
enum SpecExamples {
    struct Example: Sendable, CustomTestStringConvertible {
        var title: String
        var markdown: String
        var testDescription: String { title }
    }

    static let all: [Example] = {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/gfm-spec-examples.txt").path
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        var examples: [Example] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("=== ") {
                examples.append(Example(title: String(line.dropFirst(4)), markdown: ""))
            } else if !examples.isEmpty {
                examples[examples.count - 1].markdown += line + "\n"
            }
        }
        if var last = examples.popLast() {
            last.markdown.removeLast()
            examples.append(last)
        }
        return examples
    }()
}

struct StreamingSpecTests {
    @Test func theSpecExamplesAreAllThere() {
        #expect(SpecExamples.all.count == 673)
    }

    /// Each example is streamed whole, scalar by scalar and in two random chunkings, at a width that alternates
    /// between 40 and 80 columns, so the run stays within a few seconds.
    @Test func everySpecExampleStreamsToTheScreenOfItsWholeRender() {
        for (number, example) in SpecExamples.all.enumerated() {
            let width = number % 2 == 0 ? 40 : 80
            let capabilities = TerminalCapabilities(width: width, height: 1000, hyperlinks: true)
            let expected = screenLines(MarkdownRenderer(capabilities: capabilities, mode: .always).render(example.markdown),
                                       width: width)
            let chunkings = [[example.markdown], Snapshots.scalarByScalar(example.markdown)]
                + (0..<2).map { Snapshots.random(example.markdown, seed: UInt64(number * 2 + $0), maxStep: 8) }
            for (index, snapshots) in chunkings.enumerated() {
                let output = streamedOutput(snapshots, final: example.markdown, capabilities: capabilities)
                let actual = screenLines(output, width: width)
                #expect(actual == expected, "\(example.title), chunking \(index), width \(width)")
                if actual != expected { break }
            }
        }
    }
}
