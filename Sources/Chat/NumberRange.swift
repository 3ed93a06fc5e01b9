/// The values a numeric configuration key accepts (a number `Configuration.Setting`'s range).
public struct NumberRange: Sendable, Equatable {
    /// The lowest value, or the one every value must be above when `excludesLower`.
    public let lower: Double
    /// Whether `lower` itself is refused.
    public let excludesLower: Bool
    /// The highest value.
    public let upper: Double
    /// Whether only whole numbers are accepted.
    public let wholeNumbers: Bool

    /// Whole numbers from `bounds.lowerBound` to `bounds.upperBound`.
    public static func wholeNumbers(_ bounds: ClosedRange<Double>) -> NumberRange {
        NumberRange(lower: bounds.lowerBound, excludesLower: false, upper: bounds.upperBound, wholeNumbers: true)
    }

    /// Seconds from `bounds.lowerBound` to `bounds.upperBound`.
    public static func seconds(_ bounds: ClosedRange<Double>) -> NumberRange {
        NumberRange(lower: bounds.lowerBound, excludesLower: false, upper: bounds.upperBound, wholeNumbers: false)
    }

    /// Seconds above `lower`, at most `upper`.
    public static func seconds(above lower: Double, atMost upper: Double) -> NumberRange {
        NumberRange(lower: lower, excludesLower: true, upper: upper, wholeNumbers: false)
    }

    /// Whether `value` is in the range (NaN never is).
    public func contains(_ value: Double) -> Bool {
        (excludesLower ? value > lower : value >= lower) && value <= upper
    }

    /// `a whole number from 0 to 100`, `seconds from 1 to 86400`, `seconds above 0, at most 60`.
    public var description: String {
        let kind = wholeNumbers ? "a whole number" : "seconds"
        return excludesLower
            ? "\(kind) above \(Self.figure(lower)), at most \(Self.figure(upper))"
            : "\(kind) from \(Self.figure(lower)) to \(Self.figure(upper))"
    }

    /// `5`, `0.1`: a bound without a needless `.0`.
    private static func figure(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
