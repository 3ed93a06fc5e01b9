import EditorRPC
import Foundation
import LMStudio
import TestSupport
import Testing

@Suite struct ProtocolTests {
    @Test func requestsBeforeInitializeAreRefusedAndInitializeReportsCapabilities() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        let early = await rpc.call("models/list")
        #expect(early?.errorCode == -32002)
        let wrongVersion = await rpc.call("initialize", ["protocolVersion": 7])
        #expect(wrongVersion?.errorKind == "invalid_params")
        let result = try #require(await rpc.initialize(["coalesceMilliseconds": 20])?["result"])
        #expect(result["protocolVersion"] == 1)
        #expect(result["serverInfo"]?["version"] == "test")
        #expect(result["server"]?.string == fixture.url)
        #expect(result["capabilities"]?["coalesceMilliseconds"] == 20)
        #expect(result["capabilities"]?["methods"]?.array.contains("chat/send") == true)
        let again = await rpc.initialize()
        #expect(again?.errorCode == -32600)
        await rpc.closeInput()
    }

    @Test func invalidJSONIsAnsweredAndTheSessionGoesOn() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        await rpc.sendRaw("{not json\n\n   \n")
        let parseError = try #require(await rpc.next())
        #expect(parseError.errorCode == -32700)
        #expect(parseError["id"] == .null)
        await rpc.sendRaw("[1,2]\n")
        #expect(await rpc.next()?.errorCode == -32600)
        let unknown = await rpc.call("nope/never")
        #expect(unknown?.errorCode == -32601)
        let badParams = await rpc.call("conversations/rename", ["id": "x"])
        #expect(badParams?.errorCode == -32602)
        #expect(badParams?.errorKind == "invalid_params")
        let models = await rpc.call("models/list")
        #expect(models?["result"]?["models"]?.array.isEmpty == false)
        await rpc.closeInput()
    }

    @Test func lspFramingCarriesTheSameProtocol() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url, framing: .lsp)
        #expect(await rpc.initialize()?["result"]?["capabilities"]?["framing"] == "lsp")
        #expect(await rpc.call("folders/list")?["result"]?["folders"] == .array([]))
        await rpc.closeInput()
    }

    @Test func anUnreachableServerIsAStableRetryableKind() async throws {
        let rpc = try RPCHarness(serverURL: "http://127.0.0.1:\(unusedPort())")
        await rpc.initialize()
        let answer = try #require(await rpc.call("models/list"))
        #expect(answer.errorKind == "server_unreachable")
        #expect(answer["error"]?["data"]?["retryable"] == true)
        let send = try #require(await rpc.call("chat/send", ["text": "hello"]))
        #expect(send.errorKind == "server_unreachable")
        await rpc.closeInput()
    }

    @Test func shutdownAnswersAndStops() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        #expect(await rpc.call("shutdown")?["result"] == .null)
        #expect(await rpc.next() == nil, "the server stopped writing")
    }
}
