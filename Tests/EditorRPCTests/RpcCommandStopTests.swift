import Foundation
import LMStudio
import Testing
import TestSupport

/// Commands run for context over rpc are bounded: they end with their shell, on `$/cancelRequest`, at the end of the
/// input and at `command_timeout`, with everything they started.
@Suite struct RpcCommandStopTests {
    @Test func aBackgroundChildHoldingTheOutputDoesNotHoldTheAnswer() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let added = await rpc.call("context/add", ["command": "sleep 778 & echo $!; echo bg"])
        #expect(added?["result"]?["added"]?.array.count == 1, "\(String(describing: added))")
        let sent = await rpc.call("chat/send", ["text": "echo:with it"])
        #expect(sent?["result"]?["status"] == "complete")
        let input = try #require(fixture.requests(to: "/api/v1/chat").last?.field("input"))
        #expect(input.contains("\nbg\n```"), "what the command printed is kept: \(input)")
        let child = try #require(input.split(separator: "\n").lazy.compactMap { pid_t($0) }.first, "\(input)")
        #expect(ChildProbe.waitForEnd(of: child), "the background child is killed with the command's group")
    }

    @Test(arguments: ["context/add", "chat/send"])
    func cancellingTheRequestStopsItsCommand(method: String) async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let fifo = rpc.sandbox.root + "/pid"
        try ChildProbe.makeFIFO(fifo)
        let command: JSONValue = .string("echo $$ > \(fifo); exec sleep 1000")
        let params: [String: JSONValue] = method == "chat/send" ? ["text": "echo:never", "context": [.object(["command": command])]] : ["command": command]
        let id = await rpc.request(method, params)
        let pid = try await ChildProbe.pid(fromFIFO: fifo)
        await rpc.notify("$/cancelRequest", ["id": id])
        let answer = await rpc.response(to: id).response
        #expect(answer?.errorKind == "cancelled", "\(String(describing: answer))")
        #expect(ChildProbe.isReaped(pid), "the command is killed, and reaped before the answer")
        #expect(fixture.requests(to: "/api/v1/chat").isEmpty, "nothing was sent")
    }

    @Test func aCommandPastCommandTimeoutIsStoppedAndSaysSo() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url, settings: [("command_timeout", "1")])
        await rpc.initialize()
        let fifo = rpc.sandbox.root + "/pid"
        try ChildProbe.makeFIFO(fifo)
        let id = await rpc.request("context/add", ["command": .string("echo $$ > \(fifo); exec sleep 1000")])
        let pid = try await ChildProbe.pid(fromFIFO: fifo)
        let answer = await rpc.response(to: id).response
        let message = answer?["error"]?["message"]?.string ?? ""
        #expect(message.contains("timed out") && message.contains("command_timeout"), "\(String(describing: answer))")
        #expect(ChildProbe.isReaped(pid))
    }

    @Test func theEndOfInputEndsLlmsterAndTheCommandItRuns() throws {
        let fixture = try SimulatorFixture()
        let sandbox = try Sandbox()
        let pipe = try RPCPipe(sandbox: sandbox, server: fixture.url)
        _ = pipe.call("initialize", #"{"protocolVersion":1}"#)
        let fifo = sandbox.root + "/pid"
        try ChildProbe.makeFIFO(fifo)
        pipe.send("context/add", #"{"command":"echo $$ > \#(fifo); exec sleep 1000"}"#)
        let command = try ChildProbe.pid(fromFIFO: fifo)
        try pipe.closeInput()
        let exited = ChildProbe.waitForEnd(of: pipe.process.processIdentifier)
        // A process still running would hang the pipe's clean-up.
        if !exited { kill(pipe.process.processIdentifier, SIGKILL) }
        #expect(exited, "llmster rpc exits at the end of its input while a command runs")
        #expect(ChildProbe.waitForEnd(of: command), "the command does not outlive it")
        pipe.process.waitUntilExit()
        #expect(pipe.process.terminationStatus == 0)
    }
}
