import Chat
import Foundation
import LMStudio
import SystemSupport
import Testing

/// JSON, the server's error texts and the configuration file treat the same characters as unsafe, the set the
/// terminal sanitiser replaces too (`UnsafeScalars`): a bidirectional mark escapes JSON exactly when it cannot reach
/// a terminal raw.
@Suite struct UnsafeScalarTests {
    static let unsafe: [Unicode.Scalar] = (0...0x2100).compactMap(Unicode.Scalar.init).filter(UnsafeScalars.contains)

    @Test func theSetHoldsTheControlsTheBidiControlsAndTheSeparators() {
        for value: UInt32 in [0x1B, 0x0D, 0x7F, 0x9B, 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202E, 0x2066] {
            #expect(UnsafeScalars.contains(Unicode.Scalar(value)!), "U+\(String(value, radix: 16))")
        }
        #expect(!UnsafeScalars.any(in: "plain text, émoji 🙂 and עברית"))
    }

    /// The byte scan that spares the common case a decode finds exactly the set, for every scalar there is.
    @Test func theUTF8ScanFindsExactlyTheSet() {
        var mismatches: [String] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = "ab" + String(scalar) + "c"
            let expected = UnsafeScalars.contains(scalar)
            if UnsafeScalars.any(inUTF8: text.utf8, exceptNewlineAndTab: false) != expected
                || UnsafeScalars.any(inUTF8: text.utf8, exceptNewlineAndTab: true)
                    != (expected && scalar != "\n" && scalar != "\t")
                || UnsafeScalars.any(inUTF8: String(scalar).utf8, exceptNewlineAndTab: false) != expected
            {
                mismatches.append("U+" + String(value, radix: 16))
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(20))")
    }

    /// Eight bytes of printable ASCII are passed over at once: a scalar of the set is found at every offset of a
    /// longer text, and printable ASCII beside the set's lead bytes (space, tilde, DEL's neighbours) is not taken for one.
    @Test func theWordAtATimeScanFindsTheSetAtEveryOffset() {
        let safe: [Unicode.Scalar] = [
            " ", "~", "!", "\u{A0}", "\u{C2}", "é", "\u{0600}", "\u{2000}", "\u{2030}", "\u{2065}", "🙂"
        ]
        var mismatches: [String] = []
        for scalar in Self.unsafe + safe {
            for offset in 0..<17 {
                let text =
                    String(repeating: "x", count: offset) + String(scalar) + String(repeating: "y", count: 24 - offset)
                let expected = UnsafeScalars.contains(scalar)
                if UnsafeScalars.any(inUTF8: text.utf8, exceptNewlineAndTab: false) != expected
                    || UnsafeScalars.any(inUTF8: text.utf8, exceptNewlineAndTab: true)
                        != (expected && scalar != "\n" && scalar != "\t")
                {
                    mismatches.append("U+\(String(scalar.value, radix: 16)) at \(offset)")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(20))")
    }

    @Test func jsonEscapesEveryOne() {
        for scalar in Self.unsafe {
            let json = JSONValue.string("a" + String(scalar) + "b").jsonString
            #expect(!json.unicodeScalars.contains(scalar), "U+\(String(scalar.value, radix: 16)) escaped: \(json)")
        }
    }

    @Test func aServerErrorTextCarriesNone() {
        for scalar in Self.unsafe {
            let body = Array(#"{"error":{"message":"bad \#(String(scalar))thing"}}"#.utf8)
            let text = LMStudioError.error(status: 500, body: body, tokenSent: false)?.description ?? ""
            #expect(!text.unicodeScalars.contains(scalar), "U+\(String(scalar.value, radix: 16))")
        }
    }

    @Test func theConfigurationRefusesEveryOne() {
        for scalar in Self.unsafe {
            var configuration = Configuration()
            #expect(throws: ConfigurationError.self, "U+\(String(scalar.value, radix: 16))") {
                try configuration.setValue("acme" + String(scalar) + "model", forKey: "default_model")
            }
        }
    }
}
