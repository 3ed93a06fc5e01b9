import Foundation
import LMStudio
import TestSupport
import Testing

/// Commands run for context over rpc are bounded: they end with their shell, on `$/cancelRequest`, at the end of the
/// input and at `command_timeout`, with everything they started; through the built `llmster rpc` over real pipes.
@Suite(.spawnsProcesses) struct RpcCommandStopTests {
    /// `llmster rpc`, initialised, in a fresh sandbox with `config` as its configuration file.
    private func start(_ fixture: SimulatorFixture, config: String = "") async throws -> (RPCPipe, Sandbox) {
        let sandbox = try Sandbox()
        try sandbox.write(config, to: "config/llmster/config")
        let pipe = try RPCPipe(sandbox: sandbox, server: fixture.url)
        _ = await pipe.call("initialize", #"{"protocolVersion":1}"#)
        return (pipe, sandbox)
    }

    /// `text` as a JSON string.
    private func json(_ text: String) -> String {
        String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
    }

    @Test func aBackgroundChildHoldingTheOutputDoesNotHoldTheAnswer() async throws {
        let fixture = try SimulatorFixture()
        let (rpc, _) = try await start(fixture)
        let added = await rpc.response(
            to: rpc.send("context/add", #"{"command":"sleep 778 & echo $!; echo bg"}"#), seconds: 30)
        #expect(added?["result"]?["added"]?.array.count == 1, "\(String(describing: added))")
        let sent = await rpc.call("chat/send", #"{"text":"echo:with it"}"#)
        #expect(sent?["result"]?["status"] == "complete")
        let input = try #require(fixture.requests(to: "/api/v1/chat").last?.field("input"))
        #expect(input.contains("\nbg\n```"), "what the command printed is kept: \(input)")
        let child = try #require(input.split(separator: "\n").lazy.compactMap { pid_t($0) }.first, "\(input)")
        #expect(await ChildProbe.waitForEnd(of: child), "the background child is killed with the command's group")
    }

    @Test(arguments: ["context/add", "chat/send"])
    func cancellingTheRequestStopsItsCommand(method: String) async throws {
        let fixture = try SimulatorFixture()
        let (rpc, sandbox) = try await start(fixture)
        let fifo = sandbox.root + "/pid"
        try ChildProbe.makeFIFO(fifo)
        let command = #"{"command":\#(json("echo $$ > \(fifo); exec sleep 1000"))}"#
        let id = rpc.send(method, method == "chat/send" ? #"{"text":"echo:never","context":[\#(command)]}"# : command)
        let pid = try await ChildProbe.pid(fromFIFO: fifo)
        rpc.notify("$/cancelRequest", #"{"id":\#(id)}"#)
        let answer = await rpc.response(to: id, seconds: 30)
        #expect(answer?.errorKind == "cancelled", "\(String(describing: answer))")
        #expect(await ChildProbe.waitForEnd(of: pid), "the command is killed")
        #expect(fixture.requests(to: "/api/v1/chat").isEmpty, "nothing was sent")
    }

    @Test func aCommandPastCommandTimeoutIsStoppedAndSaysSo() async throws {
        let fixture = try SimulatorFixture()
        let (rpc, sandbox) = try await start(fixture, config: "command_timeout = 1\n")
        let fifo = sandbox.root + "/pid"
        try ChildProbe.makeFIFO(fifo)
        let id = rpc.send("context/add", #"{"command":\#(json("echo $$ > \(fifo); exec sleep 1000"))}"#)
        let pid = try await ChildProbe.pid(fromFIFO: fifo)
        let answer = await rpc.response(to: id, seconds: 30)
        let message = answer?["error"]?["message"]?.string ?? ""
        #expect(message.contains("timed out") && message.contains("command_timeout"), "\(String(describing: answer))")
        #expect(await ChildProbe.waitForEnd(of: pid), "the command is killed")
    }

    @Test func theEndOfInputEndsLlmsterAndTheCommandItRuns() async throws {
        let fixture = try SimulatorFixture()
        let (rpc, sandbox) = try await start(fixture)
        let fifo = sandbox.root + "/pid"
        try ChildProbe.makeFIFO(fifo)
        rpc.send("context/add", #"{"command":\#(json("echo $$ > \(fifo); exec sleep 1000"))}"#)
        let command = try await ChildProbe.pid(fromFIFO: fifo)
        try rpc.closeInput()
        let exited = await ChildProbe.waitForEnd(of: rpc.process.processIdentifier)
        // A process still running would hang the pipe's clean-up.
        if !exited { kill(rpc.process.processIdentifier, SIGKILL) }
        #expect(exited, "llmster rpc exits at the end of its input while a command runs")
        #expect(await ChildProbe.waitForEnd(of: command), "the command does not outlive it")
        await rpc.process.waitForExit()
        #expect(rpc.process.terminationStatus == 0)
    }
}
