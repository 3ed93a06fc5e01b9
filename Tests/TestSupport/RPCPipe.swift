import Foundation
import LMStudio
import SystemSupport

/// The built `llmster rpc` driven over real pipes, one request at a time, keeping everything it wrote.
///
/// Sendable so that its blocking reads can run on a thread of their own: one test drives it, awaiting each call, so
/// no two threads ever touch its buffer, its next id or its transcript at once.
public final class RPCPipe: @unchecked Sendable {
    public let process = Process()
    private let input = Pipe(), output = Pipe()
    private var buffer = Data()
    private var nextId = 1
    /// Every line `llmster rpc` wrote so far, responses and notifications alike.
    public private(set) var transcript = ""

    /// Starts `llmster rpc` in `sandbox` against `server`.
    public init(sandbox: Sandbox, server: String) throws {
        process.executableURL = URL(fileURLWithPath: try BuiltProduct.path("llmster"))
        process.arguments = ["rpc"]
        process.environment = sandbox.environment(server: server)
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        try? closeInput()
        // A process that does not end at the end of its input fails its test instead of hanging it.
        if !ChildProbe.blockingWaitForEnd(of: process.processIdentifier) { kill(process.processIdentifier, SIGKILL) }
        process.blockingWaitForExit()
    }

    /// Sends `method` with `params` (JSON text) without waiting for its response; returns the request's id.
    @discardableResult
    public func send(_ method: String, _ params: String) -> Int {
        let id = nextId
        nextId += 1
        write(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#)
        return id
    }

    /// Sends the notification `method` with `params` (JSON text).
    public func notify(_ method: String, _ params: String) {
        write(#"{"jsonrpc":"2.0","method":"\#(method)","params":\#(params)}"#)
    }

    /// Writes `message` and a newline (see `FileHandle.writeToChild`).
    private func write(_ message: String) {
        input.fileHandleForWriting.writeToChild(message.utf8 + [10])
    }

    /// Closes standard input, as an editor that goes away does, without waiting for the exit.
    public func closeInput() throws {
        try input.fileHandleForWriting.close()
    }

    /// Sends `method` with `params` (JSON text) and reads until its response; nil when the output ended first.
    public func call(_ method: String, _ params: String) async -> JSONValue? {
        await response(to: send(method, params))
    }

    /// Reads until the response to request `id`; nil when the output ended first or nothing came for `seconds`.
    public func response(to id: Int, seconds: Double = 120) async -> JSONValue? {
        await BlockingThread.run("rpc-read") { self.blockingResponse(to: id, seconds: seconds) }
    }

    private func blockingResponse(to id: Int, seconds: Double) -> JSONValue? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            while let newline = buffer.firstIndex(of: 10) {
                let line = buffer[buffer.startIndex..<newline]
                buffer = Data(buffer[(newline + 1)...])
                transcript += String(decoding: line, as: UTF8.self) + "\n"
                if let message = try? JSONDecoder().decode(JSONValue.self, from: Data(line)),
                    case .object(let members) = message, members["id"] == .number(Double(id))
                {
                    return message
                }
            }
            // Bounded: a request that is never answered fails the test instead of hanging it.
            let chunk = output.fileHandleForReading.blockingChunk(before: deadline)
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }

    /// Closes standard input, reads the rest of the output and waits for the exit.
    public func finish() async throws {
        try input.fileHandleForWriting.close()
        await BlockingThread.run("rpc-finish") { self.blockingFinish() }
    }

    private func blockingFinish() {
        transcript += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.blockingWaitForExit()
    }
}
