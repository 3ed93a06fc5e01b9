import Testing
import TestSupport
@testable import TerminalMarkdown

struct StreamingTests {
    static let documents = Corpus.documents + StreamingCorpus.documents
    static let cases: [(String, Int)] = documents.flatMap { document in [80, 40].map { (document.name, $0) } }

    private func document(_ name: String) -> String { Self.documents.first { $0.name == name }!.text }

    @Test(arguments: cases)
    func randomChunkingsEndOnTheScreenOfTheWholeRender(name: String, width: Int) {
        let text = document(name)
        let capabilities = TerminalCapabilities(width: width, height: 1000, hyperlinks: true)
        let expected = screenLines(MarkdownRenderer(capabilities: capabilities, mode: .always).render(text), width: width)
        for seed in UInt64(0)..<40 {
            let output = streamedOutput(Snapshots.random(text, seed: seed), final: text, capabilities: capabilities)
            let actual = screenLines(output, width: width)
            #expect(actual == expected, "seed \(seed)")
            if actual != expected { return }
        }
    }

    @Test(arguments: cases)
    func scalarByScalarStreamingEndsOnTheScreenOfTheWholeRender(name: String, width: Int) {
        let text = document(name)
        let capabilities = TerminalCapabilities(width: width, height: 1000, hyperlinks: true)
        let expected = screenLines(MarkdownRenderer(capabilities: capabilities, mode: .always).render(text), width: width)
        let output = streamedOutput(Snapshots.scalarByScalar(text), final: text, capabilities: capabilities)
        #expect(screenLines(output, width: width) == expected)
    }
}
