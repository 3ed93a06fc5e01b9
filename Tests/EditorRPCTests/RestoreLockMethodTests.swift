import Foundation
import Library
import TestSupport
import Testing

/// `library/restore` answers `busy`, naming the process, while another llmster process has the library open.
@Suite(.spawnsProcesses) struct RestoreLockMethodTests {
    @Test func aConfirmedRestoreIsBusyWhileAnotherProcessStreams() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let path = rpc.sandbox.root + "/plain.llmster-backup"
        #expect(await rpc.call("library/backup", ["path": .string(path)])?["result"]?["encrypted"] == false)
        let asking = try ProcessRunner.start(
            try BuiltProduct.path("llmster"), ["ask", "[[sim:stall=30]] echo:alpha beta gamma delta"],
            environment: rpc.sandbox.environment(server: fixture.url))
        try await rpc.sandbox.waitForPartialReply(containing: "alpha")

        let refused = await rpc.call("library/restore", ["path": .string(path), "confirm": true])
        #expect(refused?.errorKind == "busy", "\(String(describing: refused))")
        #expect(refused?["error"]?["message"]?.string?.contains("process \(asking.process.processIdentifier)") == true)
        asking.signal(SIGTERM)
        await #expect(asking.wait().status == 143)
        #expect(
            await rpc.call("library/restore", ["path": .string(path), "confirm": true])?["result"]?["restored"] == true)
        await rpc.closeInput()
    }
}
