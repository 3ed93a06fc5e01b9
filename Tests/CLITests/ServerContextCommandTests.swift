import Foundation
import Library
import TestSupport
import Testing

/// `ask` on a conversation whose context another server holds says so and offers the fresh context, instead of
/// letting this server answer without the earlier turns.
@Suite(.spawnsProcesses) struct ServerContextCommandTests {
    @Test func anImportedConversationFromAnotherServerIsNotContinuedSilently() async throws {
        let original = try SimulatorFixture()
        let source = try CLI(server: original.url)
        try await #require(try source.run(["ask", "my favourite fruit is apples"]).status == 0)
        let file = source.sandbox.root + "/fruit.llmster"
        try await #require(try source.run(["export", "my favourite fruit is apples", "-o", file]).status == 0)

        let other = try SimulatorFixture()
        let cli = try CLI(server: other.url)
        try #require(try await cli.run(["import", "--yes", file]).status == 0)
        let refused = try await cli.run(["ask", "-c", "please recall"])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.errors.contains("held by \(original.url)") && refused.errors.contains(other.url), "\(refused)")
        #expect(refused.errors.contains("--fresh-context"), "the fresh context is offered: \(refused)")
        #expect(other.requests(to: "/api/v1/chat").isEmpty, "nothing was sent")

        let conversation = try #require(try LibraryStore(path: cli.sandbox.libraryPath).conversations().first)
        #expect(
            try LibraryStore(path: cli.sandbox.libraryPath).messages(conversationId: conversation.id).count == 2,
            "the refused message is not left unanswered in the library")
        let fresh = try await cli.run(["ask", "--continue=\(conversation.id)", "--fresh-context", "please recall"])
        #expect(fresh.status == 0, "\(fresh)")
        #expect(other.requests(to: "/api/v1/chat").last?.field("input") == "please recall", "the message is sent")
        #expect(other.requests(to: "/api/v1/chat").last?.field("previous_response_id") == nil)
    }
}
