import Testing

@testable import Console
@testable import TerminalMarkdown

/// What the terminal sends besides keys (its answers to the background query, read as they may arrive: split
/// anywhere, with keys typed around them, in the forms terminals use), keys typed ahead, and the Tab list's layout.
@Suite struct TerminalInputTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test(arguments: [
        ("\u{1B}]11;rgb:ffff/ffff/ffff\u{1B}\\", TerminalBackground.light),
        ("\u{1B}]11;rgb:0000/0000/0000\u{7}", .dark),
        ("\u{1B}]11;rgb:fd/f6/e3\u{7}", .light),
        ("\u{1B}]11;rgba:2828/2c2c/3434/ffff\u{1B}\\", .dark)
    ])
    func aColourReportNamesTheBackground(report: String, expected: TerminalBackground) {
        let reply = TerminalReply(bytes(report + "\u{1B}[?62;22c"))
        #expect(reply.background == expected && reply.isComplete && reply.other.isEmpty)
    }

    @Test func everySplitOfTheAnswersIsReadTheSameOnceWhole() {
        let answer = bytes("ab\u{1B}]11;rgb:ffff/ffff/ffff\u{1B}\\c\u{1B}[?64;1;2c\r")
        for cut in 0...answer.count {
            let early = TerminalReply(Array(answer.prefix(cut)))
            #expect(
                !early.isComplete || cut >= answer.count - 1, "complete only once the DA1 answer is whole (cut \(cut))")
            #expect(early.background == nil || early.background == .light)
        }
        let whole = TerminalReply(answer)
        #expect(whole.background == .light && whole.isComplete)
        #expect(whole.other == bytes("abc\r"), "keys typed around the answers are kept, in order")
    }

    @Test func aTerminalWithoutOSC11AnswersOnlyTheAttributes() {
        let reply = TerminalReply(bytes("\u{1B}[?1;2c"))
        #expect(reply.isComplete && reply.background == nil)
        #expect(
            TerminalBackground(readingColorFgBg: nil) == nil && TerminalBackground(readingColorFgBg: "default") == nil)
        #expect(
            TerminalBackground(readingColorFgBg: "0;15") == .light
                && TerminalBackground(readingColorFgBg: "15;default;0") == .dark)
    }

    /// The width answers: mode 2027 set means grapheme clusters; otherwise the probes' measured advances pick the
    /// model that predicts more of them (kitty 0.26: a family 8 columns, a flag 2, a heart with VS16 1).
    @Test(arguments: [
        ("\u{1B}[?2027;1$y\u{1B}[1;9R\u{1B}[1;3R\u{1B}[1;2R", WidthModel?.some(.grapheme)),
        ("\u{1B}[?2027;3$y", .grapheme),
        ("\u{1B}[?2027;0$y\u{1B}[1;9R\u{1B}[1;3R\u{1B}[1;2R", .codepoint),
        ("\u{1B}[?2027;2$y\u{1B}[3;3R\u{1B}[3;3R\u{1B}[3;3R", .grapheme),
        ("\u{1B}[1;3R\u{1B}[1;3R", nil),
        ("", nil)
    ])
    func theWidthAnswersPickTheModelTheTerminalDraws(answer: String, expected: WidthModel?) {
        let reply = TerminalReply(bytes("x" + answer + "\u{1B}[?62;22c"))
        #expect(reply.isComplete && reply.other == bytes("x"))
        #expect(TerminalQuery.answers(to: reply).widthModel == expected)
    }

    @Test func keysTypedAheadLoseLineFeedsAndCtrlL() {
        #expect(LineEditor.asTyped(bytes("one\ntwo\u{C}\r")) == bytes("one\rtwo\r"))
    }

    @Test func completionListingsFillColumnsTopToBottomAndCountWhatIsCut() {
        let listing = CompletionListing(["/a", "/bb", "/c", "/dd", "/e"])
        #expect(listing.lines(width: 12, height: 40) == ["/a   /dd", "/bb  /e", "/c"])
        let cut = CompletionListing((1...30).map { "/w\($0)" }).lines(width: 12, height: 6)
        #expect(cut.count == 3 && cut.last == "… and 26 more; type more of the word to narrow them", "\(cut)")
    }
}
