import Foundation
import LMStudio

/// The built `llmster rpc` driven over real pipes, one request at a time, keeping everything it wrote.
public final class RPCPipe {
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
        process.waitUntilExit()
    }

    /// Sends `method` with `params` (JSON text) without waiting for its response; returns the request's id.
    @discardableResult
    public func send(_ method: String, _ params: String) -> Int {
        let id = nextId
        nextId += 1
        input.fileHandleForWriting.write(Data(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#.utf8 + [10]))
        return id
    }

    /// Closes standard input, as an editor that goes away does, without waiting for the exit.
    public func closeInput() throws {
        try input.fileHandleForWriting.close()
    }

    /// Sends `method` with `params` (JSON text) and reads until its response; nil when the output ended first.
    public func call(_ method: String, _ params: String) -> JSONValue? {
        let id = send(method, params)
        while true {
            while let newline = buffer.firstIndex(of: 10) {
                let line = buffer[buffer.startIndex..<newline]
                buffer = Data(buffer[(newline + 1)...])
                transcript += String(decoding: line, as: UTF8.self) + "\n"
                if let message = try? JSONDecoder().decode(JSONValue.self, from: Data(line)),
                   case .object(let members) = message, members["id"] == .number(Double(id)) {
                    return message
                }
            }
            // Blocking reads of a child process's output: the child, not this pool, produces it.
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }

    /// Closes standard input, reads the rest of the output and waits for the exit.
    public func finish() throws {
        try input.fileHandleForWriting.close()
        transcript += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
    }
}
