extension Int {
    /// `value` rounded toward zero, or `Int.max` / `Int.min` when it lies beyond them (NaN reads as 0).
    ///
    /// For numbers that come from a server or a file, where `Int(value)` would trap on an infinite,
    /// NaN or huge value.
    public init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if value >= Double(Int.max) {
            self = .max
        } else if value <= Double(Int.min) {
            self = .min
        } else {
            self = Int(value)
        }
    }

    /// `self + other`, or `Int.max` / `Int.min` instead of trapping on overflow.
    public func saturatingAdd(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// `self × other`, or `Int.max` / `Int.min` instead of trapping on overflow.
    public func saturatingMultiply(_ other: Int) -> Int {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? ((self < 0) == (other < 0) ? .max : .min) : product
    }
}
