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
