import Foundation
import LMStudio
import TestSupport
import Testing

/// The built `llmster rpc` with an integration whose header secret lives in the credentials file.
@Suite(.spawnsProcesses) struct IntegrationSecretTests {
    static let secret = "Bearer rpc-secret-value-77"

    @Test func theSecretReachesTheServerButNoAnswerExportOrBackup() async throws {
        let fixture = try SimulatorFixture()
        let sandbox = try Sandbox()
        try sandbox.write(
            """
            integration.docs = https://docs.example.com/mcp
            integration.docs.allowed_tools = search
            """, to: "config/llmster/config", permissions: 0o644)
        try sandbox.write("integration.docs.header.Authorization = \(Self.secret)\n", to: "config/llmster/credentials")
        let client = try RPCPipe(sandbox: sandbox, server: fixture.url)
        await #expect(client.call("initialize", #"{"protocolVersion":1}"#)?["result"] != nil)
        let listed = await client.call("integrations/list", "{}")?["result"]?["integrations"]
        #expect(
            listed
                == .array([
                    .object([
                        "name": .string("docs"), "kind": .string("mcp"),
                        "target": .string("https://docs.example.com/mcp"),
                        "allowedTools": .array([.string("search")])
                    ])
                ]))
        let sent = try await #require(
            client.call("chat/send", #"{"text":"echo:hi","integrations":["docs"]}"#)?["result"])
        #expect(sent["status"] == .string("complete"), "\(sent)")
        let request = try #require(fixture.requests(to: "/api/v1/chat").last)
        #expect(request.body.contains(Self.secret), "the header goes to the server, from the credentials file")
        let id = try #require(sent["conversationId"]?.string)
        await #expect(
            client.call("conversations/get", #"{"id":"\#(id)"}"#)?["result"]?["conversation"]?["integrations"]
                == .array([.string("docs")]))
        await #expect(client.call("conversations/list", "{}")?["result"] != nil)
        let export = sandbox.root + "/docs.llmster"
        let backup = sandbox.root + "/all.llmster-backup"
        await #expect(
            client.call("transfer/export", #"{"conversationId":"\#(id)","path":"\#(export)"}"#)?["result"] != nil)
        await #expect(client.call("library/backup", #"{"path":"\#(backup)"}"#)?["result"] != nil)
        await #expect(client.call("config/get", "{}")?["result"] != nil)
        try await client.finish()
        #expect(client.process.terminationStatus == 0)
        #expect(!client.transcript.contains("rpc-secret-value"), "\(client.transcript)")
        for file in [export, backup, sandbox.libraryPath] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(bytes.range(of: Data("rpc-secret-value".utf8)) == nil, "\(file)")
        }
    }
}
