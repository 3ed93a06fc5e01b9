import Foundation
import Simulator
import Testing
import TestSupport

/// `ask` piped, when `chat.end` carries a different final answer than the one that streamed.
extension AskCommandTests {
    @Test func plainOutputSaysSoOnStandardErrorAndPrintsTheFinalAnswerInFull() throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let result = try cli.run(["ask", "[[sim:rewrite]] echo:first draft"])
        #expect(result.status == 0, "\(result)")
        #expect(result.output == "first draft\nRevised: first draft\n", "the streamed text, then the final answer on its own line")
        #expect(result.errors.contains("final answer differs from the streamed text"))
        let show = try cli.run(["show", try latestConversation(cli)])
        #expect(show.output.contains("Revised: first draft"), "the server's final text is saved")
    }
}
