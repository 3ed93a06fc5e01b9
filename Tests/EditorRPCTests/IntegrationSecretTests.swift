import Foundation
import LMStudio
import Testing
import TestSupport

/// The built `llmster rpc` with an integration whose header secret lives in the credentials file.
@Suite struct IntegrationSecretTests {
    static let secret = "Bearer rpc-secret-value-77"

    /// `llmster rpc` over pipes, one request at a time; keeps everything it wrote.
    final class Client {
        let process = Process()
        private let input = Pipe(), output = Pipe()
        private var buffer = Data()
        private(set) var transcript = ""

        init(sandbox: Sandbox, server: String) throws {
            process.executableURL = URL(fileURLWithPath: try BuiltProduct.path("llmster"))
            process.arguments = ["rpc"]
            process.environment = sandbox.environment(server: server)
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        /// Sends a request and reads (blocking on the child's output) until its answer.
        func call(_ id: Int, _ method: String, _ params: String) -> JSONValue? {
            input.fileHandleForWriting.write(Data(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#.utf8 + [10]))
            while true {
                while let newline = buffer.firstIndex(of: 10) {
                    let line = buffer[buffer.startIndex..<newline]
                    buffer = Data(buffer[(newline + 1)...])
                    transcript += String(decoding: line, as: UTF8.self) + "\n"
                    guard let message = try? JSONDecoder().decode(JSONValue.self, from: Data(line)) else { continue }
                    if message["id"] == .number(Double(id)) { return message }
                }
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { return nil }
                buffer.append(chunk)
            }
        }

        /// Closes standard input and waits for the exit.
        func finish() throws {
            try input.fileHandleForWriting.close()
            transcript += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
        }
    }

    @Test func theSecretReachesTheServerButNoAnswerExportOrBackup() throws {
        let fixture = try SimulatorFixture()
        let sandbox = try Sandbox()
        try sandbox.write("""
            integration.docs = https://docs.example.com/mcp
            integration.docs.allowed_tools = search
            """, to: "config/llmster/config", permissions: 0o644)
        try sandbox.write("integration.docs.header.Authorization = \(Self.secret)\n", to: "config/llmster/credentials")
        let client = try Client(sandbox: sandbox, server: fixture.url)
        #expect(client.call(1, "initialize", #"{"protocolVersion":1}"#)?["result"] != nil)
        let listed = client.call(2, "integrations/list", "{}")?["result"]?["integrations"]
        #expect(listed == .array([.object(["name": .string("docs"), "kind": .string("mcp"),
                                            "target": .string("https://docs.example.com/mcp"),
                                            "allowedTools": .array([.string("search")])])]))
        let sent = try #require(client.call(3, "chat/send", #"{"text":"echo:hi","integrations":["docs"]}"#)?["result"])
        #expect(sent["status"] == .string("complete"), "\(sent)")
        let request = try #require(fixture.requests(to: "/api/v1/chat").last)
        #expect(request.body.contains(Self.secret), "the header goes to the server, from the credentials file")
        let id = try #require(sent["conversationId"]?.string)
        #expect(client.call(4, "conversations/get", #"{"id":"\#(id)"}"#)?["result"]?["conversation"]?["integrations"]
            == .array([.string("docs")]))
        #expect(client.call(5, "conversations/list", "{}")?["result"] != nil)
        let export = sandbox.root + "/docs.llmster", backup = sandbox.root + "/all.llmster-backup"
        #expect(client.call(6, "transfer/export", #"{"conversationId":"\#(id)","path":"\#(export)"}"#)?["result"] != nil)
        #expect(client.call(7, "library/backup", #"{"path":"\#(backup)"}"#)?["result"] != nil)
        #expect(client.call(8, "config/get", "{}")?["result"] != nil)
        try client.finish()
        #expect(client.process.terminationStatus == 0)
        #expect(!client.transcript.contains("rpc-secret-value"), "\(client.transcript)")
        for file in [export, backup, sandbox.libraryPath] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(bytes.range(of: Data("rpc-secret-value".utf8)) == nil, "\(file)")
        }
    }
}
