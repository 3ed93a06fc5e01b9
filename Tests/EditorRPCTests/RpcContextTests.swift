import Foundation
import LMStudio
import TestSupport
import Testing

/// `context/add`, `context/list`, `context/remove` and `chat/send`'s `context`, through the built `llmster rpc` over real pipes.
@Suite(.spawnsProcesses) struct RpcContextTests {
    /// `llmster rpc`, initialised; `call` gives a response's `result`, or its `error`.
    final class Connection {
        private let pipe: RPCPipe

        init(server: String, sandbox: Sandbox) async throws {
            pipe = try RPCPipe(sandbox: sandbox, server: server)
            _ = try await call("initialize", #"{"protocolVersion":1}"#)
        }

        /// The `llmster rpc` process.
        var process: Process { pipe.process }

        func call(_ method: String, _ params: String) async throws -> JSONValue {
            guard let message = await pipe.call(method, params) else { throw POSIXError(.EPIPE) }
            return message["result"] ?? message["error"] ?? .null
        }
    }

    static func json(_ text: String) -> String {
        String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
    }

    @Test func itemsAddedForANewConversationGoWithTheNextSendAndAreSavedWithIt() async throws {
        let fixture = try SimulatorFixture()
        let sandbox = try Sandbox()
        try sandbox.write("alpha\n", to: "src/a.txt")
        try sandbox.write("beta\n", to: "src/b.txt")
        let rpc = try await Connection(server: fixture.url, sandbox: sandbox)

        let added = try await rpc.call("context/add", #"{"path":"src","directory":\#(Self.json(sandbox.root))}"#)
        #expect(added["added"]?.array.count == 2, "\(added)")
        #expect(added["items"]?.at(0)?["name"] == "src/a.txt")
        #expect(added["items"]?.at(0)?["kind"] == "file")
        #expect(added["items"]?.at(0)?["bytes"] == 6)
        let buffer = try await rpc.call("context/add", #"{"name":"*scratch*","text":"from the editor"}"#)
        #expect(buffer["items"]?.array.count == 3)
        let listed = try await rpc.call("context/list", "{}")
        #expect(listed["items"]?.at(2)?["chip"]?.string?.hasPrefix("*scratch* · 15 B · ~") == true, "\(listed)")
        let removed = try await rpc.call("context/remove", #"{"index":1}"#)
        #expect(removed["items"]?.array.compactMap { $0["name"]?.string } == ["src/a.txt", "*scratch*"])

        let sent = try await rpc.call(
            "chat/send", #"{"text":"echo:thanks","context":[{"command":"echo ran; exit 1"}]}"#)
        #expect(sent["status"] == "complete", "\(sent)")
        let input = try #require(fixture.requests(to: "/api/v1/chat").last?.field("input"))
        #expect(
            input == "File src/a.txt:\n```\nalpha\n```\n\n*scratch*:\n```\nfrom the editor\n```\n\n"
                + "Output of `echo ran; exit 1` (exit status 1):\n```\nran\n```\n\necho:thanks")
        await #expect(
            try rpc.call("context/list", "{}")["items"]?.array.isEmpty == true, "the items went with that message")

        let conversation = try #require(sent["conversationId"]?.string)
        let shown = try await rpc.call("conversations/get", #"{"id":"\#(conversation)"}"#)
        let context = shown["messages"]?.at(0)?["context"]
        #expect(
            context?.array.compactMap { $0["name"]?.string } == ["src/a.txt", "*scratch*", "echo ran; exit 1"],
            "\(shown)")
        #expect(context?.at(2)?["exitStatus"] == 1)
        #expect(context?.at(1)?["text"] == "from the editor", "the library shows what was sent")
    }

    /// An editor may send its buffers with nothing typed: the items alone are the message, as with `ask -f`.
    @Test func contextItemsAloneMakeAMessage() async throws {
        let fixture = try SimulatorFixture()
        let sandbox = try Sandbox()
        let rpc = try await Connection(server: fixture.url, sandbox: sandbox)
        let sent = try await rpc.call(
            "chat/send", #"{"text":"","model":"acme/tiny-1b","context":[{"name":"plan.txt","text":"step one"}]}"#)
        #expect(sent["status"] == "complete", "\(sent)")
        let nothing = try await rpc.call("chat/send", #"{"text":"","model":"acme/tiny-1b"}"#)
        #expect(nothing["code"] == -32602, "nothing to send is still refused: \(nothing)")
    }

    @Test func badItemsAndOverflowsAnswerWithClearErrorsAndSendNothing() async throws {
        let fixture = try SimulatorFixture()
        let sandbox = try Sandbox()
        try Data([0x00, 0x01, 0x02]).write(to: URL(fileURLWithPath: sandbox.root + "/blob"))
        try sandbox.write(String(repeating: "word ", count: 60_000), to: "long.txt")
        let rpc = try await Connection(server: fixture.url, sandbox: sandbox)
        let binary = try await rpc.call("context/add", #"{"path":\#(Self.json(sandbox.root + "/blob"))}"#)
        #expect(binary["code"] == -32602)
        #expect(binary["message"]?.string?.contains("blob is a binary file") == true, "\(binary)")
        let two = try await rpc.call("context/add", #"{"path":"a","url":"http://example.com"}"#)
        #expect(two["message"]?.string?.contains("give one of") == true, "\(two)")

        let long = Self.json(sandbox.root + "/long.txt")
        let overflow = try await rpc.call(
            "chat/send", #"{"text":"echo:no","model":"acme/tiny-1b","context":[{"path":\#(long)}]}"#)
        #expect(overflow["code"] == -32013, "\(overflow)")
        #expect(overflow["data"]?["kind"] == "context_overflow" || "\(overflow)".contains("context_overflow"))
        #expect(overflow["message"]?.string?.contains("long.txt · 300 KB · ~75") == true, "\(overflow)")
        #expect(fixture.requests(to: "/api/v1/chat").isEmpty)
        await #expect(try rpc.call("conversations/list", "{}")["conversations"]?.array.isEmpty ?? true, "nothing saved")
    }
}

extension JSONValue {
    /// The array's element at `index`, nil when there is none.
    func at(_ index: Int) -> JSONValue? { array.indices.contains(index) ? array[index] : nil }
}
