import EditorRPC
import Foundation
import LMStudio
import TestSupport
import Testing

@Suite struct IntegrationMethodTests {
    static let settings = [
        ("integration.playwright", "mcp/playwright"),
        ("integration.playwright.allowed_tools", "browser_navigate, browser_click"),
        ("integration.docs", "https://docs.example.com/mcp")
    ]

    /// The `integrations` array of the simulator's latest chat request; nil when the request has none.
    private func lastIntegrations(_ fixture: SimulatorFixture) throws -> [[String: Any]]? {
        let request = try #require(fixture.requests(to: "/api/v1/chat").last)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(request.body.utf8)) as? [String: Any])
        return body["integrations"] as? [[String: Any]]
    }

    @Test func sendCarriesTheChosenIntegrationsExactlyAndNoneWhenOff() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url, settings: Self.settings)
        await rpc.initialize()
        let first = try #require(
            await rpc.call("chat/send", ["text": "echo:hi", "integrations": ["playwright"]])?["result"])
        #expect(first["status"] == "complete")
        #expect(first["notice"] == "Enabled integrations may contact external services.")
        let sent = try #require(try lastIntegrations(fixture))
        #expect(sent.count == 1)
        #expect(sent.first?["type"] as? String == "plugin")
        #expect(sent.first?["id"] as? String == "mcp/playwright")
        #expect(sent.first?["allowed_tools"] as? [String] == ["browser_navigate", "browser_click"])

        let id = try #require(first["conversationId"])
        let again = try #require(await rpc.call("chat/send", ["conversationId": id, "text": "echo:again"])?["result"])
        #expect(again["notice"] == nil, "said only when an integration is first enabled")
        #expect(try lastIntegrations(fixture)?.count == 1, "the choice is saved with the conversation")
        #expect(
            await rpc.call("conversations/get", ["id": id])?["result"]?["conversation"]?["integrations"] == [
                "playwright"
            ])

        let off = try #require(
            await rpc.call("conversations/setIntegrations", ["conversationId": id, "integrations": []])?["result"])
        #expect(off["integrations"] == .array([]))
        #expect(off["notice"] == nil)
        #expect(
            await rpc.call("chat/send", ["conversationId": id, "text": "echo:off"])?["result"]?["status"] == "complete")
        #expect(try lastIntegrations(fixture) == nil)
        #expect(await rpc.call("chat/send", ["text": "echo:new"])?["result"]?["status"] == "complete")
        #expect(try lastIntegrations(fixture) == nil, "absent unless enabled")
        await rpc.closeInput()
    }

    @Test func conversationsCreateSetAndListReportIntegrationNames() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url, settings: Self.settings)
        await rpc.initialize()
        let listed = await rpc.call("integrations/list")?["result"]?["integrations"]?.array ?? []
        #expect(
            listed == [
                .object(["name": "docs", "kind": "mcp", "target": "https://docs.example.com/mcp", "allowedTools": .null]
                ),
                .object([
                    "name": "playwright", "kind": "plugin", "target": "mcp/playwright",
                    "allowedTools": ["browser_navigate", "browser_click"]
                ])
            ])
        let created = try #require(
            await rpc.call("conversations/create", ["title": "Tools", "integrations": ["docs"]])?["result"])
        #expect(created["integrations"] == ["docs"])
        #expect(created["notice"] == "Enabled integrations may contact external services.")
        let id = try #require(created["id"])
        let both = try #require(
            await rpc.call(
                "conversations/setIntegrations",
                ["conversationId": id, "integrations": ["docs", "playwright"]])?["result"])
        #expect(both["integrations"] == ["docs", "playwright"])
        #expect(both["notice"] != nil, "playwright is new to this conversation")
        let list = await rpc.call("conversations/list")?["result"]?["conversations"]?.array ?? []
        #expect(list.first?["integrations"] == ["docs", "playwright"])
        #expect(await rpc.call("conversations/create", ["title": "Plain"])?["result"]?["integrations"] == .array([]))

        let unknown = try #require(
            await rpc.call("conversations/setIntegrations", ["conversationId": id, "integrations": ["nope"]]))
        #expect(unknown.errorKind == "invalid_params")
        #expect(unknown["error"]?["message"]?.string?.contains("configured: docs, playwright") == true)
        #expect(unknown["error"]?["data"]?["configured"] == ["docs", "playwright"])
        #expect(await rpc.call("chat/send", ["text": "hi", "integrations": ["nope"]])?.errorKind == "invalid_params")
        #expect(await rpc.call("conversations/create", ["integrations": ["nope"]])?.errorKind == "invalid_params")
        #expect(
            await rpc.call("conversations/setIntegrations", ["conversationId": id, "integrations": "docs"])?.errorKind
                == "invalid_params")
        #expect(
            await rpc.call("conversations/setIntegrations", ["conversationId": "nope", "integrations": []])?.errorKind
                == "not_found")
        #expect(
            await rpc.call("conversations/get", ["id": id])?["result"]?["conversation"]?["integrations"] == [
                "docs", "playwright"
            ],
            "a refused change leaves the choice as it was")
        await rpc.closeInput()
    }
}
