import Foundation
import LMStudio
import Library
import TestSupport
import Testing

/// `library/backup` into a FIFO and `context/add` of a FIFO, through the built `llmster rpc` over real pipes.
@Suite struct RpcSpecialPathTests {
    @Test func backupWritesAFIFOInPlaceAndAFIFOIsNoContextFile() async throws {
        let fixture = try SimulatorFixture()
        let sandbox = try Sandbox()
        let rpc = try await RpcContextTests.Connection(server: fixture.url, sandbox: sandbox)
        // Should a read of the FIFO block, the process is killed and `call` answers nil, failing the test.
        let process = rpc.process
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        await #expect(try rpc.call("chat/send", #"{"text":"echo:kept"}"#)["status"] == "complete")

        let fifo = try FIFO(sandbox.root + "/pipe")
        let backup = try await rpc.call("library/backup", #"{"path":\#(RpcContextTests.json(fifo.path))}"#)
        #expect(backup["statistics"]?["conversations"] == 1, "\(backup)")
        #expect(fifo.isStillAFIFO)
        let copy = sandbox.root + "/copy.llmster-backup"
        try Data(fifo.drain()).write(to: URL(fileURLWithPath: copy))
        #expect(try LibraryBackup.isEncrypted(copy) == false, "the reader got a backup")

        let added = try await rpc.call("context/add", #"{"path":\#(RpcContextTests.json(fifo.path))}"#)
        #expect(added["data"]?["kind"] == "invalid_context", "\(added)")
        #expect(added["message"]?.string?.contains("is a FIFO (named pipe), not a regular file") == true, "\(added)")
    }
}
