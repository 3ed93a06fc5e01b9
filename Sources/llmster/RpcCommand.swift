import Chat
import Console
import EditorRPC
import Foundation
import Library
import Synchronization
import SystemSupport
import TerminalMarkdown

/// `llmster rpc`: the editor protocol (JSON-RPC 2.0) on standard input and output.
enum RpcCommand {
    static let command = Command(
        "rpc",
        summary: "Serve the editor protocol (JSON-RPC 2.0) on standard input and output.",
        details: """
            One compact JSON object per line in each direction (or Content-Length framing with --framing=lsp,
            for Emacs' jsonrpc.el). Nothing but protocol messages reaches standard output; logs go to standard
            error. The end of standard input (or SIGTERM) cancels running work, saves partial replies and
            exits 0. `man 7 llmster-rpc` documents every method, notification and error.
            """,
        options: [
            .init(
                [.framing], value: "FRAMING", choices: ["jsonl", "lsp"],
                help: "message framing: jsonl (default) or lsp")
        ]
    ) { arguments, context in
        let framing = Framing(rawValue: arguments.value(.framing) ?? "jsonl") ?? .jsonLines
        // Held from the start, not from `initialize`: a restore elsewhere must not swap the file an editor is about to open.
        let hold = LibraryHold(path: context.libraryPath)
        defer { withExtendedLifetime(hold) {} }
        // The protocol gets its own copy of standard output; fd 1 then points at standard error, so a
        // stray print can never corrupt the stream.
        let protocolFD = dup(1)
        guard protocolFD >= 0, dup2(2, 1) >= 0 else {
            context.warn("cannot set up standard output for the protocol: \(String(cString: strerror(errno)))")
            return ExitCode.failure
        }
        signal(SIGPIPE, SIG_IGN)
        let writer = ProtocolWriter(fd: protocolFD)
        let (input, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        startReading(fd: 0, into: continuation)
        let errors = context.errors
        let server = RPCServer(
            framing: framing, version: App.version, configuration: context.configuration,
            configurationPath: context.configurationPath,
            makeSession: { configuration in
                var context = context
                context.configuration = configuration
                return try context.session()
            },
            reloadConfiguration: {
                // The file again; the server in effect (--server, LLMSTER_SERVER, --demo) stays.
                var fresh = try Configuration.load(path: context.configurationPath)
                fresh.credentialsFile = context.configuration.credentialsFile
                try fresh.setValue(context.configuration.server, forKey: "server")
                return fresh
            },
            output: { writer.write($0) }, log: { errors.line(SanitizedMessage(untrusted: $0)) })
        // A signal ends the input; the replies it cancels are saved with the reason `ask` and the REPL give.
        let trap = SignalTrap([SIGINT, SIGTERM, SIGHUP]) { signal in
            server.stop(because: StopReason.signal(signal, hangUp: "the editor closed"))
            continuation.finish()
        }
        defer { trap.remove() }
        await server.run(input: input)
        return ExitCode.success
    }

    /// Reads `fd` on its own thread (a blocking read must not hold a concurrency pool thread) until end of file.
    private static func startReading(fd: Int32, into continuation: AsyncStream<[UInt8]>.Continuation) {
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                continuation.yield(Array(buffer[..<count]))
            }
            continuation.finish()
        }
        thread.start()
    }
}

/// Writes whole protocol messages to one file descriptor, one writer at a time.
private final class ProtocolWriter: Sendable {
    private let fd: Mutex<Int32>

    init(fd: Int32) { self.fd = Mutex(fd) }

    /// Writes `bytes` completely; a closed pipe (the editor went away) is ignored.
    func write(_ bytes: [UInt8]) {
        fd.withLock { fd in try? Descriptor.writeAll(fd, bytes) }
    }
}
