import Foundation
import Library
import Simulator
import TestSupport
import Testing

/// `ask` piped, when `chat.end` carries a final answer other than the one that streamed.
extension AskCommandTests {
    @Test func aRewrittenAnswerIsWrittenOnceAndStandardErrorSaysWhereTheFinalOneIs() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let result = try await cli.run(["ask", "[[sim:rewrite]] echo:first draft"])
        #expect(result.status == 0, "\(result)")
        #expect(result.output == "first draft\n", "what streamed, once: standard output never gets the answer twice")
        #expect(
            result.errors.contains(
                "the server's final reply replaced what streamed; the streamed version is kept as an alternative"),
            "\(result.errors)")
        let show = try await cli.run(["show", try latestConversation(cli), "--alternatives"])
        #expect(show.output.contains("Revised: first draft"), "the server's final text is saved: \(show.output)")
        #expect(show.output.contains("Alternative 1 of 2"), "the streamed version is its alternative: \(show.output)")
    }

    /// `show --alternatives --reasoning` shows the kept streamed version as the reply is shown: its reasoning too.
    @Test func theStreamedVersionOfARewrittenReplyIsShownWithItsReasoning() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(try await cli.run(["ask", "[[sim:rewrite,reasoning]] echo:first draft"]).status == 0)
        let show = try await cli.run(["show", try latestConversation(cli), "--alternatives", "--reasoning"])
        let alternative = try #require(show.output.range(of: "### Alternative 1 of 2"), "\(show.output)")
        let kept = show.output[alternative.upperBound...]
        #expect(
            kept.contains("> The user wrote") && kept.contains("first draft") && !kept.contains("Revised"),
            "the streamed version, its reasoning first: \(kept)")
        let plain = try await cli.run(["show", try latestConversation(cli), "--alternatives"])
        #expect(!plain.output.contains("The user wrote"), "reasoning only with --reasoning: \(plain.output)")
    }

    /// A final answer that differs only by whitespace at its ends and Unicode normalisation (NFD "é" for NFC) is
    /// not a rewrite: one copy on standard output, no notice, no alternative, the streamed text saved.
    @Test func aFinalAnswerDifferingOnlyByWhitespaceAndNormalisationKeepsWhatStreamed() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let result = try await cli.run(["ask", "[[sim:final-whitespace]] echo:caf\u{E9} au lait"])
        #expect(result.status == 0, "\(result)")
        #expect(Array(result.output.utf8) == Array("caf\u{E9} au lait \n".utf8), "one copy, as it streamed")
        #expect(!result.errors.contains("replaced"), "\(result.errors)")
        let show = try await cli.run(["show", try latestConversation(cli), "--alternatives"])
        #expect(!show.output.contains("Alternative"), "no streamed version kept beside it: \(show.output)")
        let library = try LibraryStore(path: cli.sandbox.libraryPath)
        let conversation = try #require(try library.mostRecentConversation())
        let reply = try #require(try library.messages(conversationId: conversation.id).last)
        #expect(!reply.isRewritten && reply.streamedVersionId == nil)
        #expect(Array(reply.text.utf8) == Array("caf\u{E9} au lait ".utf8), "the streamed text is saved")
    }
}
