import Foundation
import TestSupport
import Testing

/// `--markdown always` into a pipe: rendered Markdown on standard output, nothing else.
@Suite(.spawnsProcesses) struct MarkdownPipeTests {
    @Test func renderedAnswerIntoAPipeCarriesNoStatsLine() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        let result = try await cli.run(["--markdown", "always", "ask", "echo:# Title\n\nSome **bold** text."])
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains("Title"))
        #expect(!result.output.contains("**"), "the answer is rendered")
        #expect(!result.output.contains("tok/s") && !result.output.contains("tokens"), "\(result.output)")
    }
}
