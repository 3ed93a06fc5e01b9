import Testing

@testable import TerminalMarkdown

/// The wrapper's shortcut for one run of plain ASCII words that fits (table cells, list items, short headings) lays
/// out exactly what its general layout does; an empty second run, which prints nothing, takes the general path.
@Suite struct LineWrapperTests {
    static let texts = [
        "", "a", "column", "section 241", "two  spaces", " leading", "trailing ", "tab\there", "line\nbreak",
        "exactly ten", "wide 日本", "emoji 🙂", "control \u{7F}", "https://lmstudio.ai/docs/1?a=b&c=d"
    ]
    static let styles = [TextStyle.plain, TextStyle(bold: true, color: 95), TextStyle(dim: true, italic: true)]

    @Test(arguments: [StyleLevel.color, .attributes, .plain])
    func oneRunIsLaidOutAsTheGeneralLayoutDoes(level: StyleLevel) {
        for hyperlinks in [false, true] {
            let wrapper = LineWrapper(level: level, hyperlinks: hyperlinks)
            for text in Self.texts {
                for style in Self.styles {
                    for link in [nil, "https://lmstudio.ai"] as [String?] {
                        let run = StyledRun(text: text, style: style, link: link)
                        let general = [run, StyledRun(text: "", style: style, link: link)]
                        for width in [1, 5, 10, 11, 40] {
                            let shortcut = wrapper.wrap([run], width: width)
                            let laidOut = wrapper.wrap(general, width: width)
                            #expect(shortcut.map(\.text) == laidOut.map(\.text), "\(text) at \(width)")
                            #expect(shortcut.map(\.width) == laidOut.map(\.width), "\(text) at \(width)")
                        }
                        #expect(wrapper.widestLine([run]) == wrapper.widestLine(general), "\(text)")
                    }
                }
            }
        }
    }
}
