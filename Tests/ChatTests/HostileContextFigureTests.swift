import Chat
import Testing

/// Token counts a hostile or broken server reported (and the library kept) never trap the context meter.
@Suite struct HostileContextFigureTests {
    @Test func theLargestCountsStillGiveALabel() {
        let meter = ContextMeter(usedTokens: .max, contextLength: 1)
        #expect(meter.projected(draft: "one more message") == .max)
        #expect(meter.wouldFill(draft: "x", percent: 100))
        #expect(meter.label(draft: "x").hasPrefix("ctx "))
        #expect(ContextMeter(usedTokens: 0, contextLength: .max).label().hasPrefix("ctx 0/"))
    }
}
