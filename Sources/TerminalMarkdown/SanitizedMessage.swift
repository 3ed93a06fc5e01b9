import Markdown

/// A message for the user (an error, a warning, a suggestion) that is safe to print by construction.
///
/// The literal parts of a string literal are llmster's own words and pass as written; everything interpolated
/// into it (a model key, a title, a folder, a server's message, a file's text) goes through
/// ``UntrustedText/sanitize(_:)``, so no control sequence from a server or a file can reach the terminal through a
/// message. Sanitising is idempotent, so a value already sanitised, or a whole message interpolated into another,
/// prints the same.
public struct SanitizedMessage: Sendable, Equatable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// The message as it prints.
    public let description: String

    /// A message of untrusted `text` as a whole.
    public init(untrusted text: String) {
        description = UntrustedText.sanitize(text)
    }

    /// A message from a literal without interpolations: llmster's own words, as written.
    public init(stringLiteral value: String) {
        description = value
    }

    /// A message from a literal with interpolations, each value sanitised.
    public init(stringInterpolation: StringInterpolation) {
        description = stringInterpolation.text
    }

    /// Builds a message: literal segments pass as written, interpolated values are sanitised.
    public struct StringInterpolation: StringInterpolationProtocol {
        var text = ""

        /// Reserves room for the literal text.
        public init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + 16 * interpolationCount)
        }

        /// llmster's own words.
        public mutating func appendLiteral(_ literal: String) {
            text += literal
        }

        /// A value shown with every control character made inert.
        public mutating func appendInterpolation(_ value: some CustomStringConvertible) {
            text += UntrustedText.sanitize(value.description)
        }

        /// Any other value (an error, say), as `String(describing:)` shows it, made inert.
        public mutating func appendInterpolation<Value>(_ value: Value) {
            text += UntrustedText.sanitize(String(describing: value))
        }

        /// An optional value, or `none` when absent (as Swift's own interpolation would show `nil`).
        public mutating func appendInterpolation(_ value: (some CustomStringConvertible)?) {
            text += value.map { UntrustedText.sanitize($0.description) } ?? "none"
        }

        /// Another message, already safe.
        public mutating func appendInterpolation(_ message: SanitizedMessage) {
            text += message.description
        }
    }

    /// The two messages one after the other.
    public static func + (lhs: SanitizedMessage, rhs: SanitizedMessage) -> SanitizedMessage {
        SanitizedMessage(joined: lhs.description + rhs.description)
    }

    private init(joined: String) { description = joined }
}
