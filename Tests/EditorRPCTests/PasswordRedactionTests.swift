import Testing
import TestSupport

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
}
