import Foundation
import Simulator
import TestSupport
import Testing

/// `ask --fresh-context=recap` after the server lost a conversation's context (a restart).
@Suite(.spawnsProcesses) struct RecapCommandTests {
    @Test func askResendsWithARecapAndSaysWhatItCosts() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(try await cli.run(["ask", "The code word is heron."]).status == 0)
        fixture.simulator.reset()
        let lost = try await cli.run(["ask", "-c", "recall"])
        #expect(lost.status == 1)
        #expect(lost.errors.contains("--fresh-context=recap"), "\(lost.errors)")
        let resent = try await cli.run(["ask", "-c", "--fresh-context=recap", "recall"])
        #expect(resent.status == 0, "\(resent)")
        #expect(
            resent.errors.contains("Recap for the fresh server context: the earlier turns as a transcript (about"),
            "\(resent.errors)")
        let input = fixture.requests(to: "/api/v1/chat").last?.field("input") ?? ""
        #expect(input.contains("User: The code word is heron.") && input.hasSuffix("recall"))
        let next = try await cli.run(["ask", "-c", "recall"])
        #expect(
            next.output.contains("Earlier you said: \"[llmster recap:"),
            "the new server context starts with the recap: \(next.output)")
    }
}
