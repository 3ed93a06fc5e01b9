import SystemSupport
import Testing

/// Numbers from a server or a file convert without trapping, however large, infinite or NaN.
@Suite struct SaturatingConversionTests {
    @Test(arguments: [
        (1e308, Int.max), (-1e308, Int.min), (Double.infinity, Int.max), (-Double.infinity, Int.min),
        (Double.nan, 0), (9.223372036854775807e18, Int.max), (41.9, 41), (-2.5, -2)
    ])
    func aDoubleBecomesTheNearestInt(value: Double, expected: Int) {
        #expect(Int(saturating: value) == expected)
    }

    @Test func anAdditionThatWouldOverflowStopsAtTheLimit() {
        #expect(Int.max.saturatingAdd(1) == .max)
        #expect(Int.min.saturatingAdd(-1) == .min)
        #expect(40.saturatingAdd(2) == 42)
    }
}
