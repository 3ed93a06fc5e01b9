import Foundation
import Simulator
import TestSupport
import Testing

/// The REPL says where a reply's streamed version went when the server's final event replaced it.
@Suite(.spawnsProcesses) struct ReplStreamedVersionTests {
    @Test func aReplyTheFinalEventEmptiedPointsToItsStreamedVersionUnderAlt() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start(width: 200)
        let reply = try await terminal.enter("[[sim:final-drop=answer]] echo:streamed words")
        #expect(reply.contains("the streamed version is kept as an alternative (/alt lists it)"), "\(reply)")
        let listed = try await terminal.enter("/alt")
        #expect(listed.contains("streamed words"), "\(listed)")
    }

    /// A final event differing from what streamed only by whitespace at its end and Unicode normalisation is the same
    /// answer: no notice, and no streamed version under /alt.
    @Test func aFinalEventDifferingOnlyByWhitespaceAndNormalisationIsNoRewrite() async throws {
        let repl = try ReplHarness()
        let terminal = try await repl.start(width: 200)
        let reply = try await terminal.enter("[[sim:final-whitespace]] echo:caf\u{E9} au lait")
        #expect(reply.contains("au lait"), "\(reply)")
        #expect(!reply.contains("replaced what streamed"), "\(reply)")
        let listed = try await terminal.enter("/alt")
        #expect(listed.contains("has no alternatives"), "\(listed)")
    }
}
