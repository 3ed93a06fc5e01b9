import Foundation
import Library
import TestSupport
import Testing

/// `llmster show` marks the messages an older version left without a reply (a send that failed, server down).
@Suite(.spawnsProcesses) struct UnansweredCommandTests {
    @Test func showMarksEachMessageNoReplyFollowed() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(try await cli.run(["ask", "echo:alpha"]).status == 0)
        // As an older version left two sends that failed before the server answered.
        let library = try LibraryStore(path: cli.sandbox.libraryPath)
        let id = try library.resolveConversation("echo:alpha").id
        for text in ["RECALL", "RECALL again"] {
            try library.appendMessage(conversationId: id, role: .user, MessageContent(text: text))
        }
        let shown = try await cli.run(["show", "echo:alpha"])
        #expect(shown.status == 0, "\(shown)")
        let mark = "⚠ not answered** — the send failed or stopped before a reply"
        #expect(shown.output.components(separatedBy: mark).count == 3, "both orphans are marked: \(shown.output)")
        let answered = try #require(shown.output.range(of: "## You\n\necho:alpha\n\n"))
        #expect(!shown.output[answered.upperBound...].hasPrefix("**⚠"), "the answered message is not marked")
        #expect(
            shown.output.contains("RECALL\n\n**" + mark + "\n\n## You\n\nRECALL again\n\n**" + mark + "\n"),
            "\(shown.output)")
    }
}
