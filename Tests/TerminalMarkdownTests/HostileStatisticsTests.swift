import Testing

@testable import TerminalMarkdown

/// Statistics a hostile or broken server sends are shown, never trapped on.
@Suite struct HostileStatisticsTests {
    @Test func hugeInfiniteOrNegativeFiguresStillFormat() {
        #expect(ReplyPresenter.decimal(.infinity).hasSuffix(".7"), "the largest whole number of tenths")
        #expect(ReplyPresenter.decimal(.nan) == "0.0")
        #expect(ReplyPresenter.decimal(1e308).contains(","))
        #expect(ReplyPresenter.grouped(Int.min) == "-9,223,372,036,854,775,808")
        #expect(ReplyPresenter.grouped(3402) == "3,402")
    }
}
