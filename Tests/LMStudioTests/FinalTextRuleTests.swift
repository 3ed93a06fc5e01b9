import Foundation
import Testing

@testable import LMStudio

/// The rewrite rule: a final text that differs from what streamed only by whitespace at its ends or by Unicode
/// normalisation says the same; anything else is a rewrite.
@Suite struct FinalTextRuleTests {
    static func saysTheSame(streamed: String, final: OutputText) -> Bool {
        var streamed = streamed
        return streamed.withUTF8 { FinalTextRule.saysTheSame(streamed: $0, final: final) }
    }

    @Test(arguments: [
        ("The answer.", "The answer.\n"),
        ("The answer.\n\n", "The answer."),
        (" \n The answer.", "The answer. "),
        ("The answer.\u{A0}", "The answer."),
        ("Caf\u{E9} au lait", "Cafe\u{301} au lait"),
        ("Cafe\u{301} au lait\n", "Caf\u{E9} au lait"),
        ("\n\n", "")
    ])
    func whitespaceAtTheEndsAndNormalisationSayTheSame(streamed: String, final: String) {
        #expect(Self.saysTheSame(streamed: streamed, final: OutputText(final)))
    }

    @Test(arguments: [
        ("The answer.", "Revised: The answer."),
        ("The answer.", "The  answer."),
        ("The answer.", "The answer!"),
        ("Caf\u{E9}", "Cafe"),
        ("Caf\u{E9}", "Caf\u{E8}"),
        ("streamed words", "")
    ])
    func anyOtherDifferenceIsARewrite(streamed: String, final: String) {
        #expect(!Self.saysTheSame(streamed: streamed, final: OutputText(final)))
    }

    /// A final text confirmed against the streamed text while it arrived: its shared start is compared by digest,
    /// the rest by the same rule, from a character boundary even when the cut falls inside a character.
    @Test func aConfirmedTextIsComparedFromWhereItPartsFromTheStreamedOne() {
        let streamed = Array((String(repeating: "Caf\u{E9} au lait. ", count: 100) + "Caf\u{E9}\n").utf8)
        func final(sharing shared: Int, rest: [UInt8]) -> OutputText {
            let digest = streamed.withUnsafeBufferPointer {
                TextDigest.of(UnsafeBufferPointer(rebasing: $0[..<shared]))
            }
            return OutputText(streamedPrefix: shared, digest: digest, rest: rest)
        }
        let beforeAccent = streamed.count - "\u{E9}\n".utf8.count
        let decomposed = final(sharing: beforeAccent, rest: Array("e\u{301}".utf8))
        let graveInsideTheCharacter = final(sharing: beforeAccent + 1, rest: [0xA8])
        let trimmed = final(sharing: beforeAccent, rest: Array("\u{E9}".utf8))
        streamed.withUnsafeBufferPointer { buffer in
            #expect(FinalTextRule.saysTheSame(streamed: buffer, final: decomposed))
            #expect(FinalTextRule.saysTheSame(streamed: buffer, final: trimmed))
            #expect(!FinalTextRule.saysTheSame(streamed: buffer, final: graveInsideTheCharacter), "é became è")
        }
    }
}
