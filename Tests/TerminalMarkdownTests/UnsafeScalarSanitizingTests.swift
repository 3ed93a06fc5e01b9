import Markdown
import SystemSupport
import TerminalMarkdown
import Testing

/// The terminal sanitiser replaces exactly the one set of unsafe characters (`UnsafeScalars`), newline and tab aside.
@Suite struct UnsafeScalarSanitizingTests {
    @Test func everyUnsafeScalarButNewlineAndTabIsReplaced() {
        for scalar in (0...0x2100).compactMap(Unicode.Scalar.init) where scalar != "\n" && scalar != "\t" {
            let text = "a" + String(scalar) + "b"
            let changed = UntrustedText.sanitize(text) != text
            #expect(changed == UnsafeScalars.contains(scalar), "U+\(String(scalar.value, radix: 16))")
        }
    }

    @Test func bidiMarksVanishAndSeparatorsBreakTheLine() {
        #expect(UntrustedText.sanitize("abc\u{200F}def\u{061C}") == "abcdef")
        #expect(UntrustedText.sanitize("one\u{2028}two") == "one\ntwo")
    }
}
