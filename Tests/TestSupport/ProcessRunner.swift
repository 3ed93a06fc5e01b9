import Foundation
import SystemSupport

/// What a finished process left: its exit status and everything it wrote.
public struct ProcessResult: Sendable, CustomStringConvertible {
    public let status: Int32
    /// True when a signal ended the process (then `status` is the signal number).
    public let killedBySignal: Bool
    public let output: String
    public let errors: String

    public var description: String {
        "status \(status)\(killedBySignal ? " (signal)" : "")\n--- stdout\n\(output)\n--- stderr\n\(errors)"
    }
}

/// Runs executables with captured output, for end-to-end tests.
public enum ProcessRunner {
    /// Runs `executable` to completion with `input` on standard input (empty when nil).
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String],
        input: String? = nil
    ) async throws -> ProcessResult {
        let process = try start(executable, arguments, environment: environment, input: input)
        return await process.wait()
    }

    /// Starts `executable`; standard output and error go to temporary files read when it ends.
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String],
        input: String? = nil
    ) throws -> RunningProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "llmster-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let outputURL = directory.appendingPathComponent("stdout")
        let errorURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorURL)
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.writeToChild(input.utf8) }
        try? stdin.fileHandleForWriting.close()
        return RunningProcess(process: process, outputURL: outputURL, errorURL: errorURL)
    }
}

/// A started process whose output is being captured.
public final class RunningProcess: Sendable {
    public let process: Process
    let outputURL: URL
    let errorURL: URL

    init(process: Process, outputURL: URL, errorURL: URL) {
        self.process = process
        self.outputURL = outputURL
        self.errorURL = errorURL
    }

    /// What the process has written to standard output so far.
    public var outputSoFar: String { (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "" }

    /// What the process has written to standard error so far.
    public var errorsSoFar: String { (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "" }

    /// Sends `signal` to the process.
    public func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits at most `seconds` for the process to end, killing it (SIGKILL) after that, so a test cannot hang on it;
    /// a cancelled test kills it at once.
    public func wait(killingAfter seconds: Double) async -> ProcessResult {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while process.isRunning, ContinuousClock.now < deadline {
            do { try await Task.sleep(for: .milliseconds(20)) } catch { break }
        }
        if process.isRunning { signal(SIGKILL) }
        return await wait()
    }

    /// Waits for the process to end (on a thread of its own, not the cooperative pool) and returns what it wrote.
    public func wait() async -> ProcessResult {
        await BlockingThread.run("process-wait") { self.blockingWait() }
    }

    private func blockingWait() -> ProcessResult {
        process.blockingWaitForExit()
        let output = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: outputURL.deletingLastPathComponent())
        return ProcessResult(
            status: process.terminationStatus, killedBySignal: process.terminationReason == .uncaughtSignal,
            output: output, errors: errors)
    }
}

extension Process {
    /// Waits for the process to end on a thread of its own, so the wait never holds a thread of the cooperative pool.
    public func waitForExit() async {
        await BlockingThread.run("process-exit") { self.blockingWaitForExit() }
    }

    /// Blocks in the kernel until the process has ended, without reaping it (Foundation does), then until Foundation
    /// has noticed. Foundation's own `waitUntilExit` spins a core for as long as it waits on a thread whose run loop
    /// has nothing to run, as every thread of a test has.
    func blockingWaitForExit() {
        var info = siginfo_t()
        while waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOWAIT) < 0, errno == EINTR {}
        while isRunning { usleep(1000) }
    }
}

extension FileHandle {
    /// Reads to the end of the file (a pipe: until every writer closed it) on a thread of its own.
    public func readToEndOfFile() async -> Data {
        await BlockingThread.run("read-to-end") { self.readDataToEndOfFile() }
    }

    /// Reads a child's output on a thread of its own until the text read so far is `enough`, the output ends, or
    /// `seconds` have passed since the read began; returns all it read. A child that never says it fails its test instead of
    /// hanging it.
    public func read(until enough: @escaping @Sendable (String) -> Bool, seconds: Double = 60) async -> String {
        await BlockingThread.run("read-until") {
            let deadline = Date().addingTimeInterval(seconds)
            var received = Data()
            while !enough(String(decoding: received, as: UTF8.self)) {
                let chunk = self.blockingChunk(before: deadline)
                if chunk.isEmpty { break }
                received.append(chunk)
            }
            return String(decoding: received, as: UTF8.self)
        }
    }

    /// The bytes available next, waiting for them until `deadline`; empty at the end of the output or when nothing
    /// came in time. Blocks the calling thread.
    func blockingChunk(before deadline: Date) -> Data {
        var readable = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&readable, 1, Int32(max(0, deadline.timeIntervalSinceNow * 1000)))
            if ready < 0, errno == EINTR { continue }
            return ready > 0 ? availableData : Data()
        }
    }
}
