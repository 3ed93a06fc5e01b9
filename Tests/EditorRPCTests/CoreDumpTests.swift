import Foundation
import TestSupport
import Testing

/// `llmster` holds `LM_API_TOKEN` in memory: a crash must not write it to a core file.
@Suite(.spawnsProcesses) struct CoreDumpTests {
    /// Linux gives a process that is not dumpable `/proc/PID` files owned by root, whoever runs it; so the
    /// check runs llmster as an unprivileged user (through setpriv when the tests run as root).
    @Test func llmsterRpcTurnsOffCoreDumpsAtStartUp() async throws {
        let binary = try BuiltProduct.path("llmster")
        let sandbox = try Sandbox()
        let process = Process()
        if getuid() == 0 {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", binary, "rpc"]
        } else {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["rpc"]
        }
        process.environment = sandbox.environment(
            server: "http://127.0.0.1:9", extra: ["LM_API_TOKEN": "sk-lm-secret:token"])
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.writeToChild(#"{"jsonrpc":"2.0","id":1,"method":"models/list"}"#.utf8 + [0x0A])
        // Once llmster answers, its start-up is over.
        let received = await output.fileHandleForReading.read(until: { $0.contains("\n") })
        let attributes = try FileManager.default.attributesOfItem(atPath: "/proc/\(process.processIdentifier)/status")
        let owner = (attributes[.ownerAccountID] as? NSNumber)?.intValue
        try input.fileHandleForWriting.close()
        await process.waitForExit()
        #expect(received.contains("not_initialized"), "llmster rpc answered")
        #expect(owner == 0, "a dumpable process's /proc files belong to its own user")
        #expect(process.terminationStatus == 0)
    }
}
