import Foundation
import HTTP
import LMStudio
import Library
import Simulator
import Synchronization

/// Benchmark section `stream`: the built `llmster ask` against the built `lmstudio-sim` serving as fast as the socket allows.
///
/// (a) peak RSS piped on a 256 KiB and an 8 MiB reply, and their difference (goal < 20 MB); on a 100 MiB reply, plain and
///     rewritten (goal ≤ 1.3 × the reply + 60 MB);
/// (b) CPU of `ask` on a 1 MiB reply in 7-character deltas against `curl -N` receiving the same
///     stream piped into Python's `json.loads` of every `data:` line (goal ≤ 1.5×);
/// (c) Ctrl-C on a pseudo-terminal during a 40 MB reply: time from the keystroke to the last byte drawn
///     (goal ≤ 0.5 s) and to exit, and whether the partial reply was saved as incomplete;
/// and, before (c), the terminal figures of `terminalBench`.
///
/// `LLMSTER_BENCH_LLMSTER` names another `llmster` to measure (e.g. an older build) against the same simulator.
func streamBench() async throws {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
    let llmster = ProcessInfo.processInfo.environment["LLMSTER_BENCH_LLMSTER"] ?? directory + "/llmster"
    let simulatorPath = directory + "/lmstudio-sim"
    for path in [llmster, simulatorPath] where !FileManager.default.isExecutableFile(atPath: path) {
        print("\(path) is not built")
        return
    }
    let simulator = try BenchSimulator(simulatorPath)
    defer { simulator.stop() }
    let home = try BenchHome(server: simulator.url)
    defer { home.remove() }

    // (a) Peak RSS, piped.
    var peaks: [Int: Double] = [:]
    for bytes in [256 << 10, 8 << 20] {
        let run = try BenchChild.run(llmster, ["ask", "[[sim:large=\(bytes)]] memory"], environment: home.environment)
        peaks[bytes] = Double(run.usage.ru_maxrss) / 1024
        print(
            String(
                format: "ask piped, %5d KiB reply: peak RSS %6.1f MB, %d bytes out, exit %d",
                bytes >> 10, peaks[bytes]!, run.outputBytes, run.status))
    }
    let growth = peaks[8 << 20]! - peaks[256 << 10]!
    print(String(format: "peak RSS difference 8 MiB - 256 KiB: %.1f MB (goal < 20 MB)", growth))
    // A reply held once: 100 MiB, and the same rewritten by the final event (larger than the 16 MiB event limit, so
    // the streamed text is kept and the reply marked incomplete, status 6).
    for directive in ["large=\(100 << 20)", "large=\(100 << 20),rewrite"] {
        let run = try BenchChild.run(llmster, ["ask", "[[sim:\(directive)]] memory"], environment: home.environment)
        let peak = Double(run.usage.ru_maxrss) / 1024
        let goal = 1.3 * Double(100 << 20) / 1_048_576 + 60
        print(
            String(
                format:
                    "ask piped, 100 MiB reply%@: peak RSS %6.1f MB (goal ≤ 1.3 × the reply + 60 MB = %.0f MB), exit %d",
                directive.hasSuffix("rewrite") ? " rewritten" : "", peak, goal, run.status))
    }
    var pipelinePeaks: [Double] = []
    for bytes in [256 << 10, 8 << 20] {
        let run = try BenchChild.run(
            CommandLine.arguments[0], [consumeChatArgument, simulator.url, "[[sim:large=\(bytes)]] memory"],
            environment: home.environment)
        pipelinePeaks.append(Double(run.usage.ru_maxrss) / 1024)
    }
    print(
        String(
            format:
                "of which the HTTP + SSE + decoding pipeline alone (streamChat, events dropped): %.1f MB vs %.1f MB, difference %.1f MB",
            pipelinePeaks[0], pipelinePeaks[1], pipelinePeaks[1] - pipelinePeaks[0]))

    // (b) CPU against curl + a minimal JSON parse of each event.
    let prompt = "[[sim:large=\(1 << 20),delta=7]] cpu"
    // Medians of three runs each: the figures are CPU times, but a loaded machine still moves them.
    let ask = try median(of: 3) {
        try BenchChild.run(llmster, ["ask", "--no-save", prompt], environment: home.environment)
    }
    let body = try JSONSerialization.data(withJSONObject: [
        "model": "acme/tiny-1b", "input": prompt, "stream": true, "store": false
    ])
    let bodyPath = home.root + "/chat.json"
    try body.write(to: URL(fileURLWithPath: bodyPath))
    let pipeline =
        "curl -sN -H 'Content-Type: application/json' --data-binary @\(bodyPath) \(simulator.url)/api/v1/chat"
        + " | python3 -c 'import sys, json\nfor line in sys.stdin:\n    if line.startswith(\"data: \"): json.loads(line[6:])'"
    let baseline = try median(of: 3) { try BenchChild.run("/bin/sh", ["-c", pipeline], environment: home.environment) }
    print(
        String(
            format: "ask, 1 MiB in 7-char deltas: %.3f s CPU (%d bytes out); curl -N | python3 json.loads: %.3f s CPU",
            ask.cpuSeconds, ask.outputBytes, baseline.cpuSeconds))
    print(String(format: "CPU ratio ask / (curl + parse): %.2f (goal ≤ 1.5)", ask.cpuSeconds / baseline.cpuSeconds))

    // Before anything here reads a long reply back: a child's peak RSS counts this process's (it is spawned with
    // vfork semantics), so the terminal figures are measured while this process is still small.
    try terminalBench(llmster, home: home)
    try smoothnessBench(llmster)

    // (c) Ctrl-C on a terminal during a 40 MB reply.
    let terminal = try BenchTerminal(
        llmster, ["ask", "[[sim:large=40000000]] interrupt me"], environment: home.environment)
    terminal.waitForOutput(bytes: 16 << 10)
    let start = ContinuousClock.now
    terminal.type([3])
    let status = terminal.waitForExit().status
    let exit = (ContinuousClock.now - start) / .seconds(1)
    let saved = try home.latestReply()
    // Exit comes after the save of everything that arrived, which a fast server makes tens of megabytes.
    print(
        String(
            format:
                "Ctrl-C during a 40 MB reply: drawing stopped after %.3f s (goal ≤ 0.5 s), exit after %.3f s, status %d; saved: %@",
            terminal.drawingStopped(since: start), exit, status, saved))
}

/// The figures of the path people use: `ask` rendering Markdown on a 100×40 pseudo-terminal that is read as fast
/// as it is written, against the simulator streaming Markdown-heavy text in 4 KiB deltas.
///
/// (d) peak RSS on a terminal, 256 KiB vs 8 MiB (goal: differ by < 20 MB); (e) CPU of an 8 MiB reply on a
/// terminal against piped `--markdown never` (goal ≤ 4×; medians of five, alternating), for prose and for the mix of blocks;
/// (f) 1,000 vs 4,000 tool calls in one reply (goal: linear); (g) Ctrl-C on a terminal after a 40 MiB reply has
/// arrived whole (goal: drawing stops ≤ 0.5 s after the signal, nothing drawn after it but the end line, the reply saved).
private func terminalBench(_ llmster: String, home: BenchHome) throws {
    func markdown(_ bytes: Int, prose: Bool = false) -> String {
        "[[sim:large=\(bytes),delta=4096\(prose ? ",prose" : "")]] markdown"
    }
    var peaks: [Int: Double] = [:]
    for bytes in [256 << 10, 8 << 20] {
        let started = ContinuousClock.now
        let run = try BenchTerminal.run(
            llmster, ["--markdown", "always", "ask", "--no-save", markdown(bytes)], environment: home.environment)
        let wall = (ContinuousClock.now - started) / .seconds(1)
        peaks[bytes] = Double(run.usage.ru_maxrss) / 1024
        print(
            String(
                format:
                    "ask on a terminal, %5d KiB Markdown: peak RSS %6.1f MB, %.3f s CPU, %.3f s wall, %d bytes drawn, exit %d",
                bytes >> 10, peaks[bytes]!, run.cpuSeconds, wall, run.outputBytes, run.status))
    }
    print(
        String(
            format: "terminal peak RSS difference 8 MiB - 256 KiB: %.1f MB (goal < 20 MB)",
            peaks[8 << 20]! - peaks[256 << 10]!))
    // Paragraphs with emphasis, code spans and links (the reply the issue measured), then the mix of every block
    // kind (headings, lists, a table, highlighted code and a quote every 420 bytes).
    // Terminal and piped runs alternate, so a machine whose speed drifts moves both sides of the ratio alike.
    for (name, prose) in [("prose", true), ("mixed", false)] {
        var terminalRuns: [BenchChild] = []
        var pipedRuns: [BenchChild] = []
        for _ in 0..<5 {
            terminalRuns.append(
                try BenchTerminal.run(
                    llmster, ["--markdown", "always", "ask", "--no-save", markdown(8 << 20, prose: prose)],
                    environment: home.environment))
            pipedRuns.append(
                try BenchChild.run(
                    llmster, ["--markdown", "never", "ask", "--no-save", markdown(8 << 20, prose: prose)],
                    environment: home.environment))
        }
        let terminal = median(terminalRuns)
        let piped = median(pipedRuns)
        print(
            String(
                format:
                    "8 MiB %@ Markdown: %.3f s CPU on a terminal, %.3f s piped: ratio terminal / piped %.2f (goal ≤ 4)",
                name, terminal.cpuSeconds, piped.cpuSeconds, terminal.cpuSeconds / piped.cpuSeconds))
    }

    var toolSeconds: [Int: Double] = [:]
    for count in [1000, 4000] {
        let started = ContinuousClock.now
        let run = try BenchTerminal.run(
            llmster, ["--markdown", "always", "ask", "--no-save", "[[sim:tool-calls=\(count)]] tools"],
            environment: home.environment)
        toolSeconds[count] = (ContinuousClock.now - started) / .seconds(1)
        print(
            String(
                format: "%5d tool calls on a terminal: %.3f s wall, %.3f s CPU, exit %d", count, toolSeconds[count]!,
                run.cpuSeconds, run.status))
    }
    print(
        String(
            format: "tool calls 4,000 / 1,000 wall time: %.1f× (linear: about 4×)",
            toolSeconds[4000]! / toolSeconds[1000]!))

    let terminal = try BenchTerminal(
        llmster, ["--markdown", "always", "ask", markdown(40 << 20) + " interrupt me"], environment: home.environment)
    terminal.waitForOutput(bytes: 64 << 10)
    // Long enough for a fast server to have sent the whole reply: the display's backlog is what Ctrl-C must stop.
    Thread.sleep(forTimeInterval: 2)
    let before = terminal.receivedBytes
    let start = ContinuousClock.now
    terminal.type([3])
    let status = terminal.waitForExit().status
    let exit = (ContinuousClock.now - start) / .seconds(1)
    let after = terminal.receivedBytes - before
    print(
        String(
            format:
                "Ctrl-C 2 s into a 40 MiB Markdown reply on a terminal: drawing stopped after %.3f s (goal ≤ 0.5 s), "
                + "exit after %.3f s, status %d, %d bytes drawn after the signal; saved: %@",
            terminal.drawingStopped(since: start), exit, status, after, try home.latestReply()))
}

/// Streaming at a model's pace on a terminal, for each `display_interval_ms` (250, the seed's; 50, the default; 16):
/// CPU per streamed second of mixed Markdown at 80 deltas (tokens) a second for 10 s, and the time from the server
/// writing a reply's first delta to the terminal receiving its text (median of 5). The simulator runs in this
/// process, so both instants are read from one clock.
private func smoothnessBench(_ llmster: String) throws {
    let firstDelta = Mutex<ContinuousClock.Instant?>(nil)
    var options = SimulatorOptions()
    options.eventSent = { name in
        if name == "message.delta" { firstDelta.withLock { $0 = $0 ?? .now } }
    }
    let simulator = Simulator(options: options)
    let port = try simulator.start()
    defer { simulator.stop() }
    let home = try BenchHome(server: "http://127.0.0.1:\(port)", name: "smooth")
    defer { home.remove() }
    for interval in [250, 50, 16] {
        try home.writeConfig("display_interval_ms = \(interval)\n")
        let started = ContinuousClock.now
        let run = try BenchTerminal.run(
            llmster, ["--markdown", "always", "ask", "--no-save", "[[sim:large=3200,delta=4,rate=80]] markdown"],
            environment: home.environment)
        let wall = (ContinuousClock.now - started) / .seconds(1)
        var latencies: [Double] = []
        for _ in 0..<5 {
            firstDelta.withLock { $0 = nil }
            let terminal = try BenchTerminal(
                llmster,
                ["--markdown", "always", "ask", "--no-save", "[[sim:delta=40,rate=4]] echo:zqfirst words of a reply"],
                environment: home.environment, marker: "zqfirst")
            _ = terminal.waitForExit()
            if let sent = firstDelta.withLock({ $0 }), let drawn = terminal.markerSeen {
                latencies.append((drawn - sent) / .seconds(1))
            }
        }
        latencies.sort()
        let latency = latencies.isEmpty ? Double.nan : latencies[latencies.count / 2] * 1000
        print(
            String(
                format:
                    "display_interval_ms %3d on a terminal: %.3f s CPU per streamed second (80 tok/s mixed Markdown, %.1f s, exit %d); "
                    + "first delta sent to drawn %.1f ms (median of %d)",
                interval, run.cpuSeconds / wall, wall, run.status, latency, latencies.count))
    }
}

/// The run with the median CPU time of `count` runs.
private func median(of count: Int, _ run: () throws -> BenchChild) rethrows -> BenchChild {
    var runs: [BenchChild] = []
    for _ in 0..<count { runs.append(try run()) }
    return median(runs)
}

private func median(_ runs: [BenchChild]) -> BenchChild {
    runs.sorted { $0.cpuSeconds < $1.cpuSeconds }[runs.count / 2]
}

/// The argument that makes `llmster-bench` stream one chat (server URL and prompt follow) and drop its events.
let consumeChatArgument = "--consume-chat"

/// Streams one chat from `server` with `prompt` through `LMStudioClient.streamChat`, dropping the events, for the pipeline's own peak RSS.
func consumeChat(server: String, prompt: String) async throws {
    let client = LMStudioClient(server: server, token: nil, transport: CurlTransport())
    var answerBytes = 0
    for try await event in try await client.streamChat(ChatRequest(model: "acme/tiny-1b", input: .text(prompt))) {
        if case .messageDelta(let text) = event { answerBytes += text.utf8.count }
    }
    print(answerBytes)
}

/// The built simulator, started on a free port with no delay between deltas.
private final class BenchSimulator {
    let url: String
    private let process = Process()

    init(_ path: String) throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["--token-delay", "0"]
        process.standardOutput = output
        try process.run()
        var line: [UInt8] = []
        while let byte = try output.fileHandleForReading.read(upToCount: 1)?.first, byte != UInt8(ascii: "\n") {
            line.append(byte)
        }
        url = String(decoding: line, as: UTF8.self)
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

/// A throw-away home with the XDG directories, so benchmarks never touch the user's library.
private struct BenchHome {
    let root: String
    let environment: [String: String]

    init(server: String, name: String = "stream") throws {
        root = NSTemporaryDirectory() + "llmster-bench-\(name)-\(getpid())"
        for sub in ["config", "data", "state", "home"] {
            try FileManager.default.createDirectory(atPath: root + "/" + sub, withIntermediateDirectories: true)
        }
        environment = [
            "HOME": root + "/home", "XDG_CONFIG_HOME": root + "/config", "XDG_DATA_HOME": root + "/data",
            "XDG_STATE_HOME": root + "/state", "LLMSTER_SERVER": server, "LANG": "C.UTF-8", "TERM": "xterm-256color",
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        ]
    }

    /// Replaces the config file.
    func writeConfig(_ text: String) throws {
        try FileManager.default.createDirectory(atPath: root + "/config/llmster", withIntermediateDirectories: true)
        try text.write(toFile: root + "/config/llmster/config", atomically: true, encoding: .utf8)
    }

    /// The status and length of the newest reply in the library.
    func latestReply() throws -> String {
        let library = try LibraryStore(path: root + "/data/llmster/library.sqlite3")
        guard let conversation = try library.mostRecentConversation(),
            let reply = try library.messages(conversationId: conversation.id).last(where: { $0.role == .assistant })
        else { return "nothing" }
        return "\(reply.status.rawValue), \(reply.text.utf8.count) bytes"
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: root)
    }
}

/// A finished child process: exit status, resource usage and how much it wrote to standard output.
private struct BenchChild {
    let status: Int32
    let usage: rusage
    let outputBytes: Int

    /// User plus system CPU time, including the child's own waited-for children.
    var cpuSeconds: Double {
        Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
            / 1e6
    }

    /// Runs `path` with standard output on a pipe that is drained and counted, and waits for it.
    static func run(_ path: String, _ arguments: [String], environment: [String: String]) throws -> BenchChild {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw BenchError("pipe failed: errno \(errno)") }
        let pid = try spawn(
            path, arguments, environment: environment,
            standardStreams: [open("/dev/null", O_RDONLY), fds[1], open("/dev/null", O_WRONLY)])
        close(fds[1])
        var count = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let read = read(fds[0], &buffer, buffer.count)
            if read < 0, errno == EINTR { continue }
            if read <= 0 { break }
            count += read
        }
        close(fds[0])
        let (status, usage) = wait(pid)
        return BenchChild(status: status, usage: usage, outputBytes: count)
    }
}

/// A child on a fresh pseudo-terminal (its controlling terminal), whose output is read and dropped.
///
/// `@unchecked Sendable`: the reader thread and the bench share it; every `var` is read and written with `condition`
/// locked, and the descriptors and the marker never change once it is made.
private final class BenchTerminal: @unchecked Sendable {
    private let master: Int32
    private let pid: pid_t
    private let condition = NSCondition()
    private var received = 0
    /// When the last bytes were read.
    private var lastOutput = ContinuousClock.now
    /// The child's side closed: everything it drew has been read.
    private var drained = false
    /// Bytes whose first arrival is timed, and the end of what was read, where they may start.
    private let marker: [UInt8]
    private var tail: [UInt8] = []
    private var markerArrival: ContinuousClock.Instant?

    init(_ path: String, _ arguments: [String], environment: [String: String], marker: String = "") throws {
        self.marker = Array(marker.utf8)
        // /dev/ptmx with the Linux ioctls TIOCSPTLCK (unlock) and TIOCGPTN (slave number).
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
            throw BenchError("could not open a pseudo-terminal: errno \(errno)")
        }
        var size = winsize(ws_row: 40, ws_col: 100, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        pid = try spawn(path, arguments, environment: environment, standardStreams: [], terminal: "/dev/pts/\(number)")
        let reader = Thread { [self] in drain() }
        reader.start()
    }

    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = read(master, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            condition.lock()
            if count > 0 {
                received += count
                lastOutput = .now
                if !marker.isEmpty, markerArrival == nil {
                    tail += buffer[0..<count]
                    if tail.firstRange(of: marker) != nil { markerArrival = lastOutput }
                    tail = Array(tail.suffix(marker.count - 1))
                }
            } else {
                drained = true
            }
            condition.broadcast()
            condition.unlock()
            if count <= 0 { return }
        }
    }

    /// Waits until the child has written `bytes` (or 30 s passed).
    func waitForOutput(bytes: Int) {
        let deadline = Date().addingTimeInterval(30)
        condition.lock()
        while received < bytes, condition.wait(until: deadline) {}
        condition.unlock()
    }

    /// Seconds from `start` to the last bytes the child drew (its end line, after a Ctrl-C); call after `waitForExit`.
    func drawingStopped(since start: ContinuousClock.Instant) -> Double {
        condition.lock()
        defer { condition.unlock() }
        return max(lastOutput - start, .zero) / .seconds(1)
    }

    /// When the marker's bytes were first read, if they were.
    var markerSeen: ContinuousClock.Instant? {
        condition.lock()
        defer { condition.unlock() }
        return markerArrival
    }

    /// Bytes the child has written so far.
    var receivedBytes: Int {
        condition.lock()
        defer { condition.unlock() }
        return received
    }

    /// Runs `path` on a fresh pseudo-terminal to its end, reading everything it draws.
    static func run(_ path: String, _ arguments: [String], environment: [String: String]) throws -> BenchChild {
        let terminal = try BenchTerminal(path, arguments, environment: environment)
        let (status, usage) = terminal.waitForExit()
        return BenchChild(status: status, usage: usage, outputBytes: terminal.receivedBytes)
    }

    /// Types raw bytes, e.g. `[3]` for Ctrl-C.
    func type(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Waits for the child and for the end of what it drew; its exit status (128 + signal when killed) and resource usage.
    func waitForExit() -> (status: Int32, usage: rusage) {
        let (status, usage) = wait(pid)
        condition.lock()
        while !drained { condition.wait() }
        condition.unlock()
        close(master)
        return (status, usage)
    }
}

private struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Starts `path` with fds 0, 1, 2 from `standardStreams` (closed here afterwards), or in a new session
/// whose controlling terminal and standard streams are `terminal`.
private func spawn(
    _ path: String, _ arguments: [String], environment: [String: String],
    standardStreams: [Int32], terminal: String? = nil
) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for (target, fd) in standardStreams.enumerated() {
        posix_spawn_file_actions_adddup2(&actions, fd, Int32(target))
    }
    if let terminal {
        // Opened in the child after setsid, so it becomes the controlling terminal.
        posix_spawn_file_actions_addopen(&actions, 0, terminal, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
    }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var defaults = sigset_t()
    sigfillset(&defaults)
    var empty = sigset_t()
    sigemptyset(&empty)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setsigmask(&attributes, &empty)
    // POSIX_SPAWN_SETSID (0x80): the pseudo-terminal becomes the controlling terminal, so Ctrl-C is a real SIGINT.
    posix_spawnattr_setflags(
        &attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | (terminal == nil ? 0 : 0x80)))
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var pid: pid_t = 0
    let status = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
    for fd in Set(standardStreams) { close(fd) }
    guard status == 0 else { throw BenchError("could not start \(path): error \(status)") }
    return pid
}

/// Waits for `pid`; the exit status (128 + signal when killed) and its resource usage, children included.
private func wait(_ pid: pid_t) -> (Int32, rusage) {
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0, errno == EINTR {}
    let signal = status & 0x7F
    return (signal == 0 ? (status >> 8) & 0xFF : 128 + signal, usage)
}
