import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A helper program (recorder, player, speech synthesiser) run with pipes; its standard error is kept for messages.
///
/// Unchecked: `terminate` (a `kill`) may come from any thread; everything else from the thread that owns the work.
final class ChildProcess: @unchecked Sendable {
    private let process: Process
    private let output: FileHandle?
    private let input: FileHandle
    private let errors: FileHandle

    /// Starts `command` (a program looked up on `PATH`, then its arguments).
    init(_ command: [String], captureOutput: Bool, environment: [String: String]? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        if let environment { process.environment = environment }
        let inputPipe = Pipe(), errorPipe = Pipe()
        let outputPipe = captureOutput ? Pipe() : nil
        process.standardInput = inputPipe
        process.standardOutput = outputPipe ?? FileHandle.nullDevice
        process.standardError = errorPipe
        try process.run()
        self.process = process
        output = outputPipe?.fileHandleForReading
        input = inputPipe.fileHandleForWriting
        errors = errorPipe.fileHandleForReading
    }

    /// Writes `text` to the program's standard input and closes it.
    func send(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        signal(SIGPIPE, SIG_IGN)
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(input.fileDescriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { break }
            offset += written
        }
        try? input.close()
    }

    /// Blocks until the program writes; empty at its end.
    func readOutput(maximum: Int) -> [UInt8] {
        guard let output else { return [] }
        var buffer = [UInt8](repeating: 0, count: maximum)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(output.fileDescriptor, $0.baseAddress, maximum) }
            if count < 0 && errno == EINTR { continue }
            return count <= 0 ? [] : Array(buffer[..<count])
        }
    }

    /// Stops the program at once.
    ///
    /// SIGKILL, because the program inherits llmster's ignored SIGINT and SIGTERM while a signal trap is installed.
    func terminate() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Waits for the program to end; returns the last line it wrote to standard error, or an exit status note.
    @discardableResult
    func finish() -> String {
        try? input.close()
        let message = String(decoding: errors.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let lastLine = message.split(whereSeparator: \.isNewline).last.map(String.init) ?? ""
        if !lastLine.isEmpty { return lastLine }
        return process.terminationStatus == 0 ? "" : "exit status \(process.terminationStatus)"
    }

    /// Whether the program ended successfully (after `finish`).
    var succeeded: Bool { process.terminationReason == .exit && process.terminationStatus == 0 }

    /// Whether a signal ended the program (after `finish`): Ctrl-C on the terminal reaches it as well as llmster.
    var endedBySignal: Bool { process.terminationReason == .uncaughtSignal }

    /// The first of `programs` found on `PATH`.
    static func firstAvailable(_ programs: [String], path: String?) -> String? {
        let directories = (path ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        return programs.first { program in
            directories.contains { FileManager.default.isExecutableFile(atPath: $0 + "/" + program) }
        }
    }
}
