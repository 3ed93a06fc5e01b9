/// A value bound to a statement parameter.
enum SQLValue {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    case null

    /// NULL when `value` is nil.
    static func integer(_ value: Int?) -> SQLValue { value.map { .integer(Int64($0)) } ?? .null }
    /// NULL when `value` is nil.
    static func integer(_ value: Int64?) -> SQLValue { value.map { .integer($0) } ?? .null }
    /// NULL when `value` is nil.
    static func real(_ value: Double?) -> SQLValue { value.map { .real($0) } ?? .null }
    /// NULL when `value` is nil.
    static func text(_ value: String?) -> SQLValue { value.map { .text($0) } ?? .null }
    /// 1 or 0.
    static func bool(_ value: Bool) -> SQLValue { .integer(value ? 1 : 0) }
    /// 1 or 0; NULL when `value` is nil.
    static func bool(_ value: Bool?) -> SQLValue { value.map { .bool($0) } ?? .null }
}
