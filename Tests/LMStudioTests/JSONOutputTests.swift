import LMStudio
import Testing

/// Every JSON text llmster prints (`--json` listings, `rpc`) comes from `JSONValue.jsonString`.
@Suite struct JSONOutputTests {
    @Test(
        arguments: [0x01, 0x1B, 0x7F, 0x80, 0x9B, 0x9F, 0x061C, 0x200E, 0x200F, 0x202A, 0x202E, 0x2066, 0x2069]
            as [UInt32])
    func controlsThatCouldDriveOrReorderATerminalAreEscaped(code: UInt32) throws {
        let scalar = try #require(Unicode.Scalar(code))
        let text = JSONValue.object(["name": .string("a\(Character(scalar))b")]).jsonString
        let hex = String(code, radix: 16)
        #expect(text == #"{"name":"a\u"# + String(repeating: "0", count: 4 - hex.count) + hex + #"b"}"#)
        #expect(!text.unicodeScalars.contains(scalar), "the raw character never reaches the output")
    }

    @Test func ordinaryTextIsKeptAsItIs() {
        #expect(JSONValue.string("é ✓ 🙂 עברית").jsonString == "\"é ✓ 🙂 עברית\"")
    }
}
