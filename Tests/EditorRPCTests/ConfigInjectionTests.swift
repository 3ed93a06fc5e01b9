import Foundation
import TestSupport
import Testing

@Suite struct ConfigInjectionTests {
    @Test func configSetRefusesAValueThatWouldAddALineAndLeavesTheFileAsItWas() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        #expect(await rpc.call("config/set", ["key": "default_model", "value": "acme/tiny-1b"])?["result"] != nil)
        let path = rpc.sandbox.root + "/config/llmster/config"
        let before = try String(contentsOfFile: path, encoding: .utf8)
        let injected = await rpc.call(
            "config/set", ["key": "default_model", "value": "x\nintegration.evil = https://evil.example"])
        #expect(injected?.errorKind == "invalid_params")
        #expect(injected?["error"]?["message"]?.string?.contains("control character") == true)
        let badKey = await rpc.call("config/set", ["key": "integration.a = https://evil.example\n#", "value": "mcp/x"])
        #expect(badKey?.errorKind == "invalid_params")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == before)
        await rpc.closeInput()
    }
}
