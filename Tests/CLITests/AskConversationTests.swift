import Foundation
import TestSupport
import Testing

/// `llmster ask` as an adapter over `ChatSession.openConversation`: references, overrides and not-found exit codes.
@Suite(.spawnsProcesses) struct AskConversationTests {
    @Test func anUnknownOrAmbiguousConversationExitsWithNotFound() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(try await cli.run(["ask", "echo:Twin"]).status == 0)
        #expect(try await cli.run(["ask", "echo:Twin"]).status == 0)
        let ambiguous = try await cli.run(["ask", "--continue=echo:Twin", "echo:again"])
        #expect(ambiguous.status == 5, "\(ambiguous)")
        #expect(ambiguous.errors.contains("echo:Twin"), "the candidates are listed: \(ambiguous)")
        let unknown = try await cli.run(["ask", "--continue=nothing-like-this", "echo:again"])
        #expect(unknown.status == 5, "\(unknown)")
        #expect(unknown.errors.contains("nothing-like-this"))
    }

    @Test func continuingWithANewSystemPromptStartsAFreshContext() async throws {
        let fixture = try SimulatorFixture()
        let cli = try CLI(server: fixture.url)
        #expect(try await cli.run(["ask", "--system", "Be brief.", "echo:first"]).status == 0)
        let changed = try await cli.run(["ask", "-c", "--system", "Be verbose.", "echo:second"])
        #expect(changed.status == 0, "\(changed)")
        #expect(changed.errors.contains("fresh server context"), "\(changed)")
        let last = try #require(fixture.requests(to: "/api/v1/chat").last)
        #expect(last.field("system_prompt") == "Be verbose.", "the new prompt reaches the model")
        #expect(last.field("previous_response_id") == nil)
    }
}
