import Foundation
import TestSupport
import Testing

@Suite(.spawnsProcesses) struct IntegrationTests {
    static let secret = "Bearer top-secret-value-42"

    /// A CLI whose config names a plugin and an MCP server, with the server's header secret in the credentials file.
    func configured(_ fixture: SimulatorFixture) throws -> CLI {
        let cli = try CLI(server: fixture.url)
        try cli.sandbox.write(
            """
            integration.playwright = mcp/playwright
            integration.playwright.allowed_tools = browser_navigate, browser_click
            integration.docs = https://docs.example.com/mcp
            """, to: "config/llmster/config", permissions: 0o644)
        try cli.sandbox.write(
            "integration.docs.header.Authorization = \(Self.secret)\n", to: "config/llmster/credentials")
        return cli
    }

    @Test func requestCarriesIntegrationsExactlyAsConfiguredAndNoneWhenOff() async throws {
        let fixture = try SimulatorFixture()
        let cli = try configured(fixture)
        let first = try await cli.run(["ask", "--integration", "playwright", "--integration", "docs", "echo:hi"])
        #expect(first.status == 0, "\(first)")
        #expect(first.errors.contains("may contact external services"), "the first use is announced")
        let request = try #require(fixture.requests(to: "/api/v1/chat").last)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(request.body.utf8)) as? [String: Any])
        let integrations = try #require(body["integrations"] as? [[String: Any]])
        #expect(integrations.count == 2)
        #expect(integrations[0]["type"] as? String == "plugin")
        #expect(integrations[0]["id"] as? String == "mcp/playwright")
        #expect(integrations[0]["allowed_tools"] as? [String] == ["browser_navigate", "browser_click"])
        #expect(integrations[1]["type"] as? String == "ephemeral_mcp")
        #expect(integrations[1]["server_label"] as? String == "docs")
        #expect(integrations[1]["server_url"] as? String == "https://docs.example.com/mcp")
        #expect((integrations[1]["headers"] as? [String: String])?["Authorization"] == Self.secret)

        let again = try await cli.run(["ask", "-c", "echo:again"])
        #expect(again.status == 0)
        #expect(!again.errors.contains("may contact external services"), "said once per conversation")
        #expect(
            fixture.requests(to: "/api/v1/chat").last?.bodyKeys.contains("integrations") == true, "the choice is saved")

        #expect(try await cli.run(["ask", "-c", "--integration", "none", "echo:off"]).status == 0)
        #expect(fixture.requests(to: "/api/v1/chat").last?.bodyKeys.contains("integrations") == false)
        #expect(try await cli.run(["ask", "echo:new"]).status == 0)
        #expect(
            fixture.requests(to: "/api/v1/chat").last?.bodyKeys.contains("integrations") == false,
            "absent unless enabled")
    }

    @Test func secretsNeverReachTheLibraryOrJSONOutput() async throws {
        let fixture = try SimulatorFixture()
        let cli = try configured(fixture)
        #expect(try await cli.run(["ask", "--integration", "docs", "echo:hi"]).status == 0)
        let library = try Data(contentsOf: URL(fileURLWithPath: cli.sandbox.libraryPath))
        #expect(library.range(of: Data("top-secret-value-42".utf8)) == nil)
        for arguments in await [
            ["chats", "--json"], ["show", try AskCommandTests().latestConversation(cli)], ["doctor"]
        ] {
            let result = try await cli.run(arguments)
            #expect(!result.output.contains("top-secret") && !result.errors.contains("top-secret"), "\(arguments)")
        }
    }

    @Test func unknownIntegrationIsAUsageError() async throws {
        let fixture = try SimulatorFixture()
        let result = try await configured(fixture).run(["ask", "--integration", "nope", "hi"])
        #expect(result.status == 2)
        #expect(result.errors.contains("configured: docs, playwright"))
    }

    @Test(arguments: [("mcp-error", "Allow per-request MCPs"), ("plugin-error", "Allow calling servers from mcp.json")])
    func connectionErrorsNameTheServerSetting(fault: String, setting: String) async throws {
        let fixture = try SimulatorFixture()
        let result = try await configured(fixture).run(["ask", "--integration", "docs", "[[sim:\(fault)]] hi"])
        #expect(result.status == 6, "\(result)")
        #expect(result.errors.contains(setting))
    }

    /// Calling servers from mcp.json needs "Require Authentication" and a token (LM Studio's server settings), so the
    /// errors about plugins say so, whether the stream failed or the server refused the request.
    @Test func pluginErrorsSayMcpJsonNeedsAuthenticationAndAToken() async throws {
        let fixture = try SimulatorFixture()
        let cli = try configured(fixture)
        let failed = try await cli.run(["ask", "--integration", "playwright", "[[sim:plugin-error]] hi"])
        #expect(failed.errors.contains("\"Require Authentication\" on and an API token"), "\(failed)")
        let refused = try await cli.run(["ask", "--integration", "playwright", "[[sim:integrations-off]] hi"])
        #expect(refused.status != 0, "\(refused)")
        #expect(
            refused.errors.contains("Allow per-request MCPs")
                && refused.errors.contains("Allow calling servers from mcp.json"), "\(refused)")
        #expect(refused.errors.contains("\"Require Authentication\" on and an API token"), "\(refused)")
        #expect(!refused.errors.contains(Self.secret), "the integration's secret header stays out of the message")
    }
}
