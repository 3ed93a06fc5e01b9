import TestSupport
import Testing

@testable import TerminalMarkdown

/// Output variants the golden files are recorded for.
enum Variant: String, CaseIterable {
    case color
    case noColor = "no-color"
    case dumb

    func capabilities(width: Int) -> TerminalCapabilities {
        switch self {
        case .color: return TerminalCapabilities(width: width, hyperlinks: true)
        case .noColor: return TerminalCapabilities(noColor: true, width: width)
        case .dumb: return TerminalCapabilities(isDumb: true, width: width)
        }
    }
}

struct RenderingTests {
    static let cases: [(String, Variant, Int)] = Corpus.documents.flatMap { document in
        Variant.allCases.flatMap { variant in [80, 40].map { (document.name, variant, $0) } }
    }

    @Test(arguments: cases)
    func corpusMatchesGolden(name: String, variant: Variant, width: Int) {
        let text = Corpus.documents.first { $0.name == name }!.text
        let output = MarkdownRenderer(capabilities: variant.capabilities(width: width), mode: .always).render(text)
        assertGolden(output, named: "\(name).\(variant.rawValue)-\(width)", in: snapshotDirectory(for: #filePath))
    }
}
