import Foundation
import Synchronization
import SystemSupport

/// A program running on a real pseudo-terminal: keys go in, everything it draws comes out.
///
/// The child is started with `posix_spawn` in a new session with the pty's slave as its controlling
/// terminal and standard streams, so Ctrl-C typed here is a real SIGINT from the line discipline.
/// A reader thread collects the output; waits are bounded by a deadline. Like xterm, the terminal answers a primary
/// device attributes request (`ESC [ c`), an OSC 11 background query when it was given a `background` colour, a
/// DECRQM query for mode 2027 when given a `graphemeMode`, and cursor position requests with `cursorColumns`.
///
/// The reader thread holds only the shared `Output` and a descriptor of its own, not the terminal: a terminal the
/// test lets go of is freed, which kills its program, and the reader ends at the end of file that follows. Sendable
/// because its own properties never change: what does is in `Output`, guarded by its condition.
public final class Pseudoterminal: @unchecked Sendable {
    public let pid: pid_t
    /// The master side, for typing; the reader reads a duplicate of it, which it closes when it ends.
    private let master: Int32
    /// The slave's path, for `waitUntilInputIsRead`.
    private let slavePath: String
    private let output: Output

    /// Starts `executable` on a `width`×`height` terminal; `echo: false` starts it with echo off, as Emacs
    /// starts programs in its buffers.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String],
        width: Int = 100, height: Int = 40, echo: Bool = true, background: String? = nil,
        answersDeviceAttributes: Bool = true, graphemeMode: Int? = nil, cursorColumns: [Int] = []
    ) throws {
        output = Output(
            background: background, answersDeviceAttributes: answersDeviceAttributes, graphemeMode: graphemeMode,
            cursorColumns: cursorColumns)
        // /dev/ptmx with the Linux ioctls (Swift's Glibc module lacks posix_openpt and ptsname):
        // TIOCSPTLCK (0x40045431) unlocks the slave, TIOCGPTN (0x80045430) gives its number.
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { throw PseudoterminalError("could not open /dev/ptmx: errno \(errno)") }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
            close(master)
            throw PseudoterminalError("could not set up the pty: errno \(errno)")
        }
        let name = "/dev/pts/\(number)"
        self.master = master
        slavePath = name
        var size = winsize(ws_row: UInt16(height), ws_col: UInt16(width), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        var settings = termios()
        if !echo, tcgetattr(master, &settings) == 0 {
            settings.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(master, TCSANOW, &settings)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, name, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        // Descriptors other tests have open at this moment (pipe ends above all, and the socket by which
        // Foundation learns that a process it started ended) must not leak into a long-lived child, or their
        // readers would never see end of file.
        closeDescriptorsPastStandardError(in: &actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigfillset(&defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        // POSIX_SPAWN_SETSID (0x80): a new session, so opening the slave makes it the controlling terminal.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | 0x80))
        let argv = [executable] + arguments
        let envp = environment.map { "\($0.key)=\($0.value)" }
        var cArguments = argv.map { strdup($0) } + [nil]
        var cEnvironment = envp.map { strdup($0) } + [nil]
        defer { for pointer in cArguments + cEnvironment { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, &cArguments, &cEnvironment)
        guard status == 0 else {
            close(master)
            throw PseudoterminalError("could not start \(executable): error \(status)")
        }
        self.pid = pid
        let readerFD = dup(master)
        guard readerFD >= 0 else {
            kill(pid, SIGKILL)
            waitpid(pid, nil, 0)
            close(master)
            throw PseudoterminalError("could not set up the pty's reader: errno \(errno)")
        }
        let reader = Thread { [output] in Self.readLoop(output, fd: readerFD) }
        reader.name = "pty-reader"
        reader.start()
    }

    deinit {
        if output.exitStatus == nil {
            kill(pid, SIGKILL)
            waitpid(pid, nil, 0)
        }
        output.condition.lock()
        if !output.masterClosed { close(master) }
        output.condition.unlock()
        close(output.hangUpPipe.write)
    }

    /// Closes the terminal as a closed window does: every master descriptor goes, so the kernel hangs the terminal
    /// up (SIGHUP to the program, its reads end, its writes fail with EIO). Returns once the reader has let go.
    public func hangUp() {
        var byte: UInt8 = 1
        _ = write(output.hangUpPipe.write, &byte, 1)
        output.condition.lock()
        while !output.closed { output.condition.wait() }
        if !output.masterClosed { close(master) }
        output.masterClosed = true
        output.condition.unlock()
    }

    /// Collects the output from `fd` into `output`, answering the terminal queries in it, until the end of file.
    private static func readLoop(_ output: Output, fd: Int32) {
        defer {
            close(fd)
            close(output.hangUpPipe.read)
        }
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            output.condition.lock()
            while output.paused { output.condition.wait() }
            output.condition.unlock()
            var descriptors = [
                pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: output.hangUpPipe.read, events: Int16(POLLIN), revents: 0)
            ]
            if poll(&descriptors, 2, -1) < 0 { continue }
            if descriptors[1].revents != 0 {
                // `hangUp`: this descriptor closes (at the defer), the last of the master side but the one it closes.
                output.condition.lock()
                output.closed = true
                output.condition.broadcast()
                output.condition.unlock()
                return
            }
            let count = read(fd, &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            output.condition.lock()
            if count <= 0 { output.closed = true } else { output.bytes += chunk[0..<count] }
            let answers = count > 0 ? output.queryAnswers() : ""
            output.condition.broadcast()
            output.condition.unlock()
            if !answers.isEmpty { try? Descriptor.writeAll(fd, Array(answers.utf8)) }
            if count <= 0 { return }
        }
    }
}

/// What the reader thread and the terminal's waits share. Sendable because every mutable property is read and
/// written with `condition` held.
private final class Output: @unchecked Sendable {
    let condition = NSCondition()
    var bytes: [UInt8] = []
    var closed = false
    /// A byte written to its write end makes the reader close its descriptor and end (`Pseudoterminal.hangUp`);
    /// each end is closed once, the read end by the reader, the write end with the terminal.
    let hangUpPipe: (read: Int32, write: Int32)
    /// Whether the terminal's own master descriptor was closed (`hangUp`): nothing more is typed, and it is not
    /// closed again.
    var masterClosed = false
    var exitStatus: Int32?
    /// While true the output is not read, so the program's writes block once the pty's buffer is full: a terminal
    /// slower than anything the program could draw.
    var paused = false
    /// How far the output has been looked at for queries to answer.
    var answeredUpTo = 0
    /// The colour an OSC 11 query is answered with (`rgb:ffff/ffff/ffff`); nil: such queries go unanswered.
    let background: String?
    /// Whether device attributes requests are answered (a terminal that answers nothing at all: false).
    let answersDeviceAttributes: Bool
    /// The state reported for mode 2027 (grapheme clusters); nil: the query goes unanswered.
    let graphemeMode: Int?
    /// The cursor columns reported to the next cursor position requests, one each, in order; unanswered past them.
    var cursorColumns: [Int]

    init(background: String?, answersDeviceAttributes: Bool, graphemeMode: Int?, cursorColumns: [Int]) {
        var ends: [Int32] = [-1, -1]
        _ = pipe(&ends)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        hangUpPipe = (ends[0], ends[1])
        self.background = background
        self.answersDeviceAttributes = answersDeviceAttributes
        self.graphemeMode = graphemeMode
        self.cursorColumns = cursorColumns
    }

    /// The answers to the queries in the output since the last look (called with the lock held).
    func queryAnswers() -> String {
        let queries: [(request: [UInt8], answer: () -> String?)] = [
            (Array("\u{1B}]11;?".utf8), { self.background.map { "\u{1B}]11;\($0)\u{1B}\\" } }),
            (Array("\u{1B}[c".utf8), { self.answersDeviceAttributes ? "\u{1B}[?62;22c" : nil }),
            (Array("\u{1B}[?2027$p".utf8), { self.graphemeMode.map { "\u{1B}[?2027;\($0)$y" } }),
            (
                Array("\u{1B}[6n".utf8),
                { self.cursorColumns.isEmpty ? nil : "\u{1B}[1;\(self.cursorColumns.removeFirst())R" }
            )
        ]
        var answers = ""
        var index = max(answeredUpTo - 8, 0)
        while index < bytes.count {
            if let query = queries.first(where: {
                bytes.count >= index + $0.request.count && Array(bytes[index..<index + $0.request.count]) == $0.request
            }) {
                if index + query.request.count > answeredUpTo { answers += query.answer() ?? "" }
                index += query.request.count
            } else {
                index += 1
            }
        }
        answeredUpTo = bytes.count
        return answers
    }
}

extension Pseudoterminal {
    /// Stops reading the output (after the chunk being read), so the program's drawing stalls on a full buffer.
    public func pauseReading() {
        output.condition.lock()
        output.paused = true
        output.condition.unlock()
    }

    /// Reads the output again.
    public func resumeReading() {
        output.condition.lock()
        output.paused = false
        output.condition.broadcast()
        output.condition.unlock()
    }

    /// Types `text` (use `\r` for Enter, `\u{3}` for Ctrl-C, `\t` for Tab).
    public func send(_ text: String) {
        // A terminal whose program has gone takes nothing more; one hung up has no master to write to.
        output.condition.lock()
        let hungUp = output.masterClosed
        output.condition.unlock()
        guard !hungUp else { return }
        try? Descriptor.writeAll(master, Array(text.utf8))
    }

    /// Everything the program wrote, raw.
    public var rawOutput: String {
        output.condition.lock()
        defer { output.condition.unlock() }
        return String(decoding: output.bytes, as: UTF8.self)
    }

    /// Everything the program wrote, with escape sequences, readline's prompt markers and carriage returns removed.
    public var text: String { Self.strip(rawOutput) }

    /// A position in `text`, for waiting on what comes after it.
    public var mark: Int { text.count }

    /// Waits until the stripped output after `mark` contains `expected`; returns that output. The wait blocks a
    /// thread of its own, never one of the cooperative pool that tests running beside this one need.
    @discardableResult
    public func waitFor(_ expected: String, after mark: Int = 0, seconds: Double = 30) async throws -> String {
        try await BlockingThread.run("pty-wait") { try self.blockingWaitFor(expected, after: mark, seconds: seconds) }
    }

    /// Waits as `waitFor` does and returns the position in `text` just past the first `expected` after `mark`. What
    /// came after it may already be there when the wait ends (a busy machine wakes the waiter late), so waiting for
    /// what follows `expected` starts here, never at the end of the output.
    public func waitPast(_ expected: String, after mark: Int = 0, seconds: Double = 30) async throws -> Int {
        let shown = try await waitFor(expected, after: mark, seconds: seconds)
        guard let match = shown.range(of: expected) else { return mark + shown.count }
        return mark + shown.distance(from: shown.startIndex, to: match.upperBound)
    }

    private func blockingWaitFor(_ expected: String, after mark: Int, seconds: Double) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        output.condition.lock()
        defer { output.condition.unlock() }
        while true {
            let text = String(Self.strip(String(decoding: output.bytes, as: UTF8.self)).dropFirst(mark))
            if text.contains(expected) { return text }
            if output.closed || !output.condition.wait(until: deadline) {
                throw PseudoterminalError(
                    "did not see \(expected.debugDescription) within \(seconds) s\(output.closed ? " (the program closed the terminal)" : ""); output after the mark:\n\(text)"
                )
            }
        }
    }

    /// Waits until the program has read everything typed (the terminal's input queue is empty), so that a key sent
    /// next (Ctrl-C) meets text the program holds, not text the terminal would discard itself.
    public func waitUntilInputIsRead(seconds: Double = 30) async throws {
        let path = slavePath
        try await BlockingThread.run("pty-input-read") {
            let slave = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
            guard slave >= 0 else { throw PseudoterminalError("could not open \(path): errno \(errno)") }
            defer { close(slave) }
            let deadline = Date().addingTimeInterval(seconds)
            var unread: Int32 = 0
            while ioctl(slave, UInt(FIONREAD), &unread) == 0, unread > 0 {
                guard Date() < deadline else {
                    throw PseudoterminalError("the program left \(unread) typed bytes unread for \(seconds) s")
                }
                usleep(1000)
            }
        }
    }

    /// Waits until the terminal holds at least `count` typed bytes the program has not read (in canonical mode, bytes
    /// of whole lines only), so a signal sent next finds them there.
    public func waitUntilInputIsQueued(_ count: Int, seconds: Double = 30) async throws {
        let path = slavePath
        try await BlockingThread.run("pty-input-queued") {
            let slave = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
            guard slave >= 0 else { throw PseudoterminalError("could not open \(path): errno \(errno)") }
            defer { close(slave) }
            let deadline = Date().addingTimeInterval(seconds)
            var unread: Int32 = 0
            while ioctl(slave, UInt(FIONREAD), &unread) == 0, unread < count {
                guard Date() < deadline else {
                    throw PseudoterminalError(
                        "only \(unread) of \(count) typed bytes reached the program in \(seconds) s")
                }
                usleep(1000)
            }
        }
    }

    /// Types `line` and Enter while the program draws, waits until the terminal holds the line (and would have echoed
    /// it, were echo on), then types Ctrl-C; returns the exit status.
    public func typeLineThenInterrupt(_ line: String) async throws -> Int32 {
        send(line + "\r")
        try await waitUntilInputIsQueued((line + "\n").utf8.count)
        send("\u{3}")
        return try await waitForExit()
    }

    /// Whether the terminal echoes and edits lines itself (the cooked mode a shell expects).
    public var isCooked: Bool {
        var settings = termios()
        guard tcgetattr(master, &settings) == 0 else { return false }
        return settings.c_lflag & tcflag_t(ECHO) != 0 && settings.c_lflag & tcflag_t(ICANON) != 0
    }

    /// Whether the program is stopped (Ctrl-Z), from /proc.
    public var isStopped: Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("T")
    }

    /// Changes the terminal size; the program gets SIGWINCH.
    public func resize(width: Int, height: Int) {
        var size = winsize(ws_row: UInt16(height), ws_col: UInt16(width), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
    }

    /// Waits for the program to exit (on a thread of its own); returns its exit status, or 128+signal.
    public func waitForExit(seconds: Double = 30) async throws -> Int32 {
        try await BlockingThread.run("pty-exit") { try self.blockingWaitForExit(seconds: seconds) }
    }

    private func blockingWaitForExit(seconds: Double) throws -> Int32 {
        output.condition.lock()
        let known = output.exitStatus
        output.condition.unlock()
        if let known { return known }
        let deadline = Date().addingTimeInterval(seconds)
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { break }
            if result < 0, errno != EINTR { throw PseudoterminalError("waitpid failed: errno \(errno)") }
            if Date() > deadline {
                throw PseudoterminalError("the program did not exit within \(seconds) s; output:\n\(text)")
            }
            output.condition.lock()
            _ = output.condition.wait(until: Date().addingTimeInterval(0.05))
            output.condition.unlock()
        }
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        // What the program wrote just before it exited may still be on its way to the reader: wait for the end of
        // file (the terminal's last writer gone), briefly, in case a process it started still holds the terminal.
        let drained = Date().addingTimeInterval(2)
        output.condition.lock()
        output.exitStatus = code
        while !output.closed, output.condition.wait(until: drained) {}
        output.condition.unlock()
        return code
    }

    /// Removes CSI and OSC sequences, other two-byte escapes, \001/\002 and carriage returns; IND (`ESC D`, which
    /// ends a reply's lines on a terminal) becomes the newline it looks like.
    public static func strip(_ raw: String) -> String {
        var result = ""
        var iterator = raw.unicodeScalars.makeIterator()
        while let scalar = iterator.next() {
            switch scalar {
            case "\u{1B}":
                guard let next = iterator.next() else { break }
                if next == "D" {
                    result.unicodeScalars.append("\n")
                } else if next == "[" {
                    while let c = iterator.next(), !(0x40...0x7E).contains(c.value) {}
                } else if next == "]" {
                    var previous: Unicode.Scalar = " "
                    while let c = iterator.next(), c != "\u{7}", !(previous == "\u{1B}" && c == "\\") { previous = c }
                }
            case "\u{1}", "\u{2}", "\r", "\u{7}", "\u{8}":
                continue
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

/// A pseudo-terminal could not be set up, or the expected output did not come.
public struct PseudoterminalError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
