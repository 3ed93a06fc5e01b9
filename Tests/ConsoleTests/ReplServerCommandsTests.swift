import Foundation
import TestSupport
import Testing

/// `/integrations`, `/export`, `/import` and `/download` through the REPL, driven with piped input.
@Suite(.spawnsProcesses) struct ReplServerCommandsTests {
    func run(_ lines: [String], sandbox: Sandbox, fixture: SimulatorFixture) async throws -> ProcessResult {
        try await ProcessRunner.run(
            try BuiltProduct.path("llmster"), [], environment: sandbox.environment(server: fixture.url),
            input: lines.joined(separator: "\n") + "\n")
    }

    @Test func integrationsAreListedAndTurnedOnForTheConversation() async throws {
        let fixture = try SimulatorFixture()
        let sandbox = try Sandbox()
        try sandbox.write(
            "integration.docs = https://docs.example.com/mcp\n", to: "config/llmster/config", permissions: 0o644)
        let result = try await run(
            ["/integrations", "/integrations on docs", "echo:hi", "/integrations", "/integrations on nope"],
            sandbox: sandbox, fixture: fixture)
        #expect(result.output.contains("off docs  MCP server https://docs.example.com/mcp"), "\(result)")
        #expect(result.output.contains("may contact external services"))
        #expect(result.output.contains("on  docs"))
        #expect(
            result.errors.contains("no integration named 'nope'")
                || result.output.contains("no integration named 'nope'"))
        #expect(fixture.requests(to: "/api/v1/chat").last?.bodyKeys.contains("integrations") == true)
    }

    @Test func exportThenImportOpensTheCopy() async throws {
        let fixture = try SimulatorFixture()
        let sandbox = try Sandbox()
        let file = sandbox.root + "/moved.llmster"
        let first = try await run(["echo:exported text", "/export \(file)"], sandbox: sandbox, fixture: fixture)
        #expect(first.output.contains("Exported to \(file)"), "\(first)")
        let other = try Sandbox()
        let second = try await run(["/import \(file)", "/show"], sandbox: other, fixture: fixture)
        #expect(second.output.contains("Imported and opened"), "\(second)")
        #expect(second.output.contains("exported text"))
    }

    /// A file name completed by readline (`SSE\\ notes.llmster`) is one argument; importing a conversation into the
    /// library that still holds it is refused rather than duplicated; errors name the command, not `llmster:`.
    @Test func importTakesEscapedNamesRefusesItsOwnOriginalAndNamesItself() async throws {
        let fixture = try SimulatorFixture()
        let sandbox = try Sandbox()
        let escaped = sandbox.root.replacingOccurrences(of: " ", with: "\\ ") + "/SSE\\ notes.llmster"
        let first = try await run(
            [
                "echo:kept once", "/export \(sandbox.root)/SSE notes.llmster", "/import \(escaped)",
                "/import \(sandbox.root)/none.llmster"
            ],
            sandbox: sandbox, fixture: fixture)
        #expect(first.output.contains("Exported to"), "\(first)")
        #expect(first.errors.contains("/import: this library already holds this conversation"), "\(first)")
        #expect(first.errors.contains("/import: ") && first.errors.contains("none.llmster"), "\(first)")
        #expect(!first.errors.split(separator: "\n").contains { $0.hasPrefix("llmster:") }, "\(first)")
        let other = try await run(["/import \(escaped)"], sandbox: try Sandbox(), fixture: fixture)
        #expect(other.output.contains("Imported and opened echo:kept once"), "\(other)")
    }

    /// The refusal to import a conversation the library holds suggests `--as-new`; the REPL's `/import` takes it.
    @Test func importAsNewAddsACopyOfAConversationTheLibraryHolds() async throws {
        let fixture = try SimulatorFixture()
        let sandbox = try Sandbox()
        let file = sandbox.root + "/twice.llmster"
        let result = try await run(
            ["echo:imported twice", "/export \(file)", "/import \(file)", "/import \(file) --as-new", "/chats"],
            sandbox: sandbox, fixture: fixture)
        #expect(result.errors.contains("pass --as-new to import a copy"), "\(result)")
        #expect(!result.errors.contains("unknown option"), "\(result)")
        #expect(result.output.contains("Imported and opened echo:imported twice"), "\(result)")
        let listed = result.output.split(separator: "\n").filter {
            $0.contains("echo:imported twice") && !$0.contains("Imported")
        }
        #expect(listed.count == 2, "/chats lists the original and the copy: \(result.output)")
    }

    @Test func setSpeakTurnsSpokenAnswersOnForVoice() async throws {
        let fixture = try SimulatorFixture()
        let result = try await run(["/set speak on", "/set speak loudly"], sandbox: try Sandbox(), fixture: fixture)
        #expect(result.output.contains("Voice answers are on"), "\(result)")
        #expect((result.output + result.errors).contains("speak takes on or off"))
    }

    @Test func downloadStartsAServerJob() async throws {
        let fixture = try SimulatorFixture()
        let result = try await run(
            ["/download acme/new-3b", "/download acme/tiny-1b"], sandbox: try Sandbox(), fixture: fixture)
        #expect(result.output.contains("llmster download --status job_"), "\(result)")
        #expect(result.output.contains("acme/tiny-1b is already downloaded"))
    }
}
