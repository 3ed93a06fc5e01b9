import LMStudio
import TestSupport
import Testing

@Suite struct PasswordRedactionTests {
    @Test func aPasswordInTheServerURLNeverReachesTheEditor() async throws {
        let rpc = try RPCHarness(serverURL: "http://ann:hunter2@127.0.0.1:9")
        let initialized = try #require(await rpc.initialize())
        #expect(initialized["result"]?["server"] == "http://ann:***@127.0.0.1:9")
        let failed = try #require(await rpc.call("models/list"))
        #expect(failed.errorKind == "server_unreachable")
        let message = try #require(failed["error"]?["message"]?.string)
        #expect(message.contains("ann:***@127.0.0.1:9") && !message.contains("hunter2"), "\(message)")
        await rpc.closeInput()
    }

    @Test func conversationsAndPreviewsCarryNoPasswordAndTheServerIsStillRecognised() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url.replacingOccurrences(of: "://", with: "://ann:hunter2@"))
        await rpc.initialize()
        let sent = await rpc.response(to: await rpc.request("chat/send", ["text": "echo:one"])).0
        let conversation = try #require(sent?["result"]?["conversationId"])
        let got = try #require(await rpc.call("conversations/get", ["id": conversation]))
        let listed = try #require(await rpc.call("conversations/list"))
        let preview = try #require(await rpc.call("chat/preview", ["conversationId": conversation, "text": "two"]))
        for answer in [got, listed, preview] { #expect(!answer.jsonString.contains("hunter2"), "\(answer.jsonString)") }
        #expect(got["result"]?["conversation"]?["serverURL"]?.string == fixture.url)
        #expect(preview["result"]?["server"]?.string?.contains("ann:***@") == true)
        #expect(
            preview["result"]?["body"]?["previous_response_id"]?.string?.isEmpty == false,
            "the conversation's server, kept without the password, is the configured one")
        await rpc.closeInput()
    }
}
