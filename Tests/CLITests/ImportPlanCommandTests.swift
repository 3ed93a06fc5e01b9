import Foundation
import Library
import Simulator
import TestSupport
import Testing

/// `llmster import` asks exactly when the engine's import plan says so; a file whose continuation names no server is
/// asked about too, rather than imported into a conversation whose first message is refused.
@Suite(.spawnsProcesses) struct ImportPlanCommandTests {
    /// An answered conversation exported with its response id but without the server that holds it (as an older or
    /// hand-made file may be).
    private func serverlessExport(_ fixture: SimulatorFixture) async throws -> (cli: CLI, file: String) {
        let cli = try CLI(server: fixture.url)
        try #require(try await cli.run(["ask", "echo:where was I"]).status == 0)
        let library = try LibraryStore(path: cli.sandbox.libraryPath)
        let conversation = try #require(try library.conversations().first)
        let responseId = try #require(conversation.lastResponseId)
        try library.setContinuation(conversationId: conversation.id, serverURL: nil, responseId: responseId)
        let file = cli.sandbox.root + "/serverless.llmster"
        try library.exportConversation(id: conversation.id, to: file)
        return (cli, file)
    }

    @Test func aContinuationWithoutAServerIsAskedAboutNotImportedSilently() async throws {
        let fixture = try SimulatorFixture()
        let (source, file) = try await serverlessExport(fixture)
        defer { withExtendedLifetime(source) {} }
        let target = try CLI(server: fixture.url)
        let refused = try await target.run(["import", file])
        #expect(refused.status == 1, "no terminal to ask: \(refused)")
        #expect(refused.errors.contains("does not say which server"), "\(refused)")
        #expect(refused.errors.contains("--yes") && refused.errors.contains("--drop-continuation"), "\(refused)")
        #expect(try LibraryStore(path: target.sandbox.libraryPath).conversations().isEmpty, "nothing imported")

        #expect(try await target.run(["import", "--drop-continuation", file]).status == 0)
        let next = try await target.run(["ask", "-c", "echo:and now"])
        #expect(next.status == 0, "a dropped continuation starts afresh, so the first message is answered: \(next)")
    }
}
