import Foundation
import LMStudio
import TestSupport
import Testing

/// The built `llmster rpc`, driven over real pipes.
@Suite(.spawnsProcesses) struct RpcBinaryTests {
    @Test func theBinarySpeaksOnlyProtocolOnStandardOutputAndExitsZeroAtEndOfInput() async throws {
        let fixture = try SimulatorFixture()
        let sandbox = try Sandbox()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BuiltProduct.path("llmster"))
        process.arguments = ["rpc"]
        process.environment = sandbox.environment(server: fixture.url)
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let requests = [
            #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}"#,
            "this is not json",
            #"{"jsonrpc":"2.0","id":2,"method":"chat/send","params":{"text":"echo:over real pipes"}}"#
        ]
        input.fileHandleForWriting.writeToChild((requests.joined(separator: "\n") + "\n").utf8)
        var received = Data(
            await output.fileHandleForReading.read(until: {
                $0.split(separator: "\n").contains { $0.contains(#""id":2"#) }
            }).utf8)
        try input.fileHandleForWriting.close()
        await process.waitForExit()
        received.append(await output.fileHandleForReading.readToEndOfFile())
        let stderr = String(decoding: await errors.fileHandleForReading.readToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(stderr)")
        let messages = String(decoding: received, as: UTF8.self).split(separator: "\n").map {
            try? JSONDecoder().decode(JSONValue.self, from: Data($0.utf8))
        }
        #expect(messages.allSatisfy { $0 != nil }, "every stdout line is a JSON message")
        #expect(messages.contains { $0?.errorCode == -32700 })
        let reply = try #require(messages.compactMap { $0 }.first { $0["id"] == 2 })
        #expect(reply["result"]?["status"] == "complete")
        #expect(reply["result"]?["message"]?["text"] == "over real pipes")
        #expect(messages.contains { $0?["params"]?["type"] == "message.delta" })
        #expect(stderr.contains("Parse error"), "logs go to standard error")
    }

    /// SIGHUP is what Emacs sends its processes when it exits: the reason names the editor, not a terminal.
    @Test(arguments: [(SIGTERM, "Stopped by SIGTERM"), (SIGHUP, "Stopped by SIGHUP (the editor closed)")])
    func aSignalMidStreamSavesThePartialReplyAnswersAndExitsZero(signal: Int32, reason: String) async throws {
        let fixture = try SimulatorFixture()
        let sandbox = try Sandbox()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BuiltProduct.path("llmster"))
        process.arguments = ["rpc"]
        process.environment = sandbox.environment(server: fixture.url)
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.writeToChild(
            """
            {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}
            {"jsonrpc":"2.0","id":2,"method":"chat/send","params":{"text":"[[sim:stall=30]] echo:one two three four five"}}

            """.utf8)
        var received = await output.fileHandleForReading.read(until: { $0.contains(#""type":"message.delta""#) })
        #expect(received.contains(#""type":"message.delta""#))
        kill(process.processIdentifier, signal)
        received += String(decoding: await output.fileHandleForReading.readToEndOfFile(), as: UTF8.self)
        await process.waitForExit()
        try? input.fileHandleForWriting.close()
        #expect(process.terminationStatus == 0)
        #expect(process.terminationReason == .exit)
        let reply = try #require(
            received.split(separator: "\n").compactMap {
                try? JSONDecoder().decode(JSONValue.self, from: Data($0.utf8))
            }.first { $0["id"] == 2 })
        #expect(reply["result"]?["status"] == "incomplete", "\(received)")
        #expect(reply["result"]?["message"]?["text"]?.string?.hasPrefix("one") == true)
        #expect(received.contains(reason), "the saved reason names the signal, as ask's does: \(received)")
    }
}

/// `llmster --config PATH rpc` reads and writes that file, not the default one.
@Suite(.spawnsProcesses) struct RpcConfigurationPathTests {
    @Test func configMethodsUseTheConfigGivenOnTheCommandLine() async throws {
        let fixture = try SimulatorFixture()
        let sandbox = try Sandbox()
        let path = sandbox.root + "/elsewhere.conf"
        try sandbox.write("default_model = acme/vision-7b\n", to: "elsewhere.conf", permissions: 0o600)
        let requests = [
            #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"config/get","params":{"key":"default_model"}}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"config/set","params":{"key":"reasoning_tail_lines","value":"5"}}"#
        ]
        let result = try await ProcessRunner.run(
            try BuiltProduct.path("llmster"), ["--config", path, "rpc"],
            environment: sandbox.environment(server: fixture.url),
            input: requests.joined(separator: "\n") + "\n")
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains(#""value":"acme/vision-7b""#), "\(result)")
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("reasoning_tail_lines = 5"))
        #expect(
            !FileManager.default.fileExists(atPath: sandbox.root + "/config/llmster/config"),
            "the default file is left alone")
    }
}
