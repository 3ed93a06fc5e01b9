import Foundation
import Glibc
import Synchronization
import SystemSupport

/// A helper program (recorder, player, speech synthesiser) run with pipes; its standard error is kept for messages.
///
/// `terminate` may come from any thread; everything else from the thread that owns the work.
final class ChildProcess: Sendable {
    private let process: SpawnedProcess
    /// The read end of the program's standard output, when captured.
    private let output: Int32?
    /// The write end of the program's standard input; -1 once closed.
    private let input: Mutex<Int32>
    /// The read end of the program's standard error.
    private let errors: Int32

    /// Starts `command` (a program looked up on `PATH`, then its arguments).
    init(_ command: [String], captureOutput: Bool) throws {
        guard let program = command.first else { throw SpawnError(program: "", code: EINVAL) }
        let inputPipe = try Descriptor.pipe()
        let errorPipe = try Descriptor.pipe()
        let outputPipe = captureOutput ? try Descriptor.pipe() : nil
        let discard = captureOutput ? -1 : open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer {
            for fd in [inputPipe.read, errorPipe.write, outputPipe?.write ?? -1, discard] where fd >= 0 { close(fd) }
        }
        do {
            process = try SpawnedProcess(
                program: program, arguments: Array(command.dropFirst()),
                standardInput: inputPipe.read, standardOutput: outputPipe?.write ?? discard,
                standardError: errorPipe.write)
        } catch {
            for fd in [inputPipe.write, errorPipe.read, outputPipe?.read ?? -1] where fd >= 0 { close(fd) }
            throw error
        }
        output = outputPipe?.read
        input = Mutex(inputPipe.write)
        errors = errorPipe.read
    }

    deinit {
        closeInput()
        close(errors)
        if let output { close(output) }
    }

    /// Writes `text` to the program's standard input and closes it; a program that stopped reading is not an error.
    func send(_ text: String) {
        signal(SIGPIPE, SIG_IGN)
        input.withLock { fd in
            if fd >= 0 { try? Descriptor.writeAll(fd, Array(text.utf8)) }
        }
        closeInput()
    }

    /// Blocks until the program writes; empty at its end.
    func readOutput(maximum: Int) -> [UInt8] {
        guard let output else { return [] }
        return (try? Descriptor.readSome(output, maximum: maximum)) ?? []
    }

    /// Stops the program at once.
    ///
    /// SIGKILL, so a program that catches or ignores SIGTERM stops as well.
    func terminate() {
        process.signal(SIGKILL)
    }

    /// Waits for the program to end; returns the last line it wrote to standard error, or an exit status note.
    @discardableResult
    func finish() -> String {
        closeInput()
        var message: [UInt8] = []
        while let chunk = try? Descriptor.readSome(errors, maximum: 4096), !chunk.isEmpty { message += chunk }
        let ended = process.wait()
        let lastLine =
            String(decoding: message, as: UTF8.self).split(whereSeparator: \.isNewline).last.map(String.init) ?? ""
        if !lastLine.isEmpty { return lastLine }
        return switch ended {
        case .exited(0): ""
        case .exited(let status): "exit status \(status)"
        case .signalled(let number): "ended by signal \(number)"
        }
    }

    /// Whether the program ended successfully (after `finish`).
    var succeeded: Bool { process.termination?.succeeded ?? false }

    /// Whether a signal ended the program (after `finish`): Ctrl-C on the terminal reaches it as well as llmster.
    var endedBySignal: Bool {
        if case .signalled = process.termination { true } else { false }
    }

    /// The first of `programs` found on `PATH`.
    static func firstAvailable(_ programs: [String], path: String?) -> String? {
        let directories = (path ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        return programs.first { program in
            directories.contains { FileManager.default.isExecutableFile(atPath: $0 + "/" + program) }
        }
    }

    private func closeInput() {
        input.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
    }
}
