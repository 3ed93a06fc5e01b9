import Testing
@testable import TerminalMarkdown
@testable import Console

/// What the terminal sends besides keys (its answers to the background query, read as they may arrive: split
/// anywhere, with keys typed around them, in the forms terminals use), keys typed ahead, and the Tab list's layout.
@Suite struct TerminalInputTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test(arguments: [
        ("\u{1B}]11;rgb:ffff/ffff/ffff\u{1B}\\", TerminalBackground.light),
        ("\u{1B}]11;rgb:0000/0000/0000\u{7}", .dark),
        ("\u{1B}]11;rgb:fd/f6/e3\u{7}", .light),
        ("\u{1B}]11;rgba:2828/2c2c/3434/ffff\u{1B}\\", .dark),
    ])
    func aColourReportNamesTheBackground(report: String, expected: TerminalBackground) {
        let reply = BackgroundReply(bytes(report + "\u{1B}[?62;22c"))
        #expect(reply.background == expected && reply.isComplete && reply.other.isEmpty)
    }

    @Test func everySplitOfTheAnswersIsReadTheSameOnceWhole() {
        let answer = bytes("ab\u{1B}]11;rgb:ffff/ffff/ffff\u{1B}\\c\u{1B}[?64;1;2c\r")
        for cut in 0...answer.count {
            let early = BackgroundReply(Array(answer.prefix(cut)))
            #expect(!early.isComplete || cut >= answer.count - 1, "complete only once the DA1 answer is whole (cut \(cut))")
            #expect(early.background == nil || early.background == .light)
        }
        let whole = BackgroundReply(answer)
        #expect(whole.background == .light && whole.isComplete)
        #expect(whole.other == bytes("abc\r"), "keys typed around the answers are kept, in order")
    }

    @Test func aTerminalWithoutOSC11AnswersOnlyTheAttributes() {
        let reply = BackgroundReply(bytes("\u{1B}[?1;2c"))
        #expect(reply.isComplete && reply.background == nil)
        #expect(TerminalBackground(readingColorFgBg: nil) == nil && TerminalBackground(readingColorFgBg: "default") == nil)
        #expect(TerminalBackground(readingColorFgBg: "0;15") == .light && TerminalBackground(readingColorFgBg: "15;default;0") == .dark)
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
