import Foundation
import TestSupport
import Testing

/// What llmster's child processes (`/run`, `$PAGER`) get of its environment: all of it but its credentials.
@Suite(.spawnsProcesses) struct ChildEnvironmentTests {
    @Test func commandsAndThePagerDoNotGetLlmstersCredentials() async throws {
        let token = "sk-lm-Abc12345:abcdefghij0123456789"
        var repl = try ReplHarness(environment: [
            "LM_API_TOKEN": token, "LLMSTER_BACKUP_PASSWORD": "backup-secret",
            "LLMSTER_VISIBLE": "passed-on"
        ])
        // A server URL with a password in it is a credential too.
        repl.extra["LLMSTER_SERVER"] = repl.fixture.url.replacingOccurrences(of: "://", with: "://llm:url-secret@")
        let pagerEnvironment = repl.sandbox.root + "/pager-environment"
        repl.extra["PAGER"] = "env > \(pagerEnvironment); cat"
        let terminal = try await repl.start()
        try await terminal.enter("/run env")
        try await terminal.enter("echo:env")
        let input = try #require(repl.fixture.requests(to: "/api/v1/chat").last?.field("input"))
        #expect(input.contains("LLMSTER_VISIBLE=passed-on"), "the rest of the environment is passed on: \(input)")
        #expect(!input.contains(token) && !input.contains("backup-secret") && !input.contains("url-secret"), "\(input)")
        try await terminal.enter("/show")
        let paged = try String(contentsOfFile: pagerEnvironment, encoding: .utf8)
        #expect(paged.contains("LLMSTER_VISIBLE=passed-on"), "\(paged)")
        #expect(!paged.contains(token) && !paged.contains("backup-secret") && !paged.contains("url-secret"), "\(paged)")
    }
}
