import Glibc
import Synchronization

/// A program started with `posix_spawn`: arguments go to it as they are (no shell), it gets no descriptor beyond
/// its standard three, the signals llmster ignores or blocks are back at their defaults in it, and llmster's
/// credentials are not in its environment (``childEnvironment()``).
public final class SpawnedProcess: Sendable {
    /// How a program ended.
    public enum Termination: Sendable, Equatable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal with this number ended it.
        case signalled(Int32)

        /// Whether it exited with status 0.
        public var succeeded: Bool { self == .exited(0) }
    }

    /// The process id.
    public let id: pid_t
    /// Set once the process has been reaped, so the id is never signalled after the system may reuse it.
    private let ended = Mutex<Termination?>(nil)

    /// Starts `program` with `arguments` (not including the program itself).
    ///
    /// A `program` without a slash is looked up on this process's `PATH`. `environment` nil passes this process's
    /// environment on without llmster's credentials (``childEnvironment()``). A nil descriptor leaves the child the
    /// same standard descriptor as this process; a given one is made the child's standard input, output or error (the
    /// caller keeps and closes its own copy). With `ownProcessGroup` the program leads a new process group, which
    /// ``signalGroup(_:)`` reaches with everything it started, and which the terminal's Ctrl-C does not reach.
    public init(
        program: String, arguments: [String], environment: [String: String]? = nil,
        standardInput: Int32? = nil, standardOutput: Int32? = nil, standardError: Int32? = nil,
        ownProcessGroup: Bool = false
    ) throws(SpawnError) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (source, target) in [(standardInput, 0), (standardOutput, 1), (standardError, 2)] {
            if let source { posix_spawn_file_actions_adddup2(&actions, source, Int32(target)) }
        }
        closeDescriptorsPastStandardError(in: &actions)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGWINCH, SIGTSTP] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        var flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK
        if ownProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        var envp =
            (environment.map { $0.map { "\($0.key)=\($0.value)" } } ?? Self.childEnvironment()).map { strdup($0) } + [
                nil
            ]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawn = program.contains("/") ? posix_spawn : posix_spawnp
        let result = spawn(&pid, program, &actions, &attributes, argv, &envp)
        guard result == 0 else { throw SpawnError(program: program, code: result) }
        id = pid
    }

    /// Blocks until the program ends, then reports how; later calls return the same.
    @discardableResult
    public func wait() -> Termination {
        if let termination { return termination }
        // Wait without reaping, so `signal` never reaches a reused id; reap under the lock.
        waitUntilEnded()
        return ended.withLock { ended in
            if let ended { return ended }
            var status: Int32 = 0
            while waitpid(id, &status, 0) < 0, errno == EINTR {}
            let termination: Termination =
                status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f)
            ended = termination
            return termination
        }
    }

    /// Blocks until the program ends without reaping it: until `wait` is called its id (and its process group's)
    /// stays reserved, so ``signalGroup(_:)`` still reaches only what it started.
    public func waitUntilEnded() {
        var info = siginfo_t()
        while waitid(P_PID, id_t(id), &info, WEXITED | WNOWAIT) != 0, errno == EINTR {}
    }

    /// How the program ended, once `wait` has seen it end; nil before.
    public var termination: Termination? { ended.withLock { $0 } }

    /// Sends `signal` to the program unless it has already been reaped.
    public func signal(_ number: Int32) {
        ended.withLock { ended in
            if ended == nil { _ = kill(id, number) }
        }
    }

    /// Sends `signal` to the process group the program leads (started with `ownProcessGroup`) unless it has been reaped.
    public func signalGroup(_ number: Int32) {
        ended.withLock { ended in
            if ended == nil { _ = kill(-id, number) }
        }
    }

    /// The environment variables that hold llmster's credentials: the API token and the backup password.
    public static let credentialVariables: Set<String> = ["LM_API_TOKEN", "LLMSTER_BACKUP_PASSWORD"]

    /// This process's environment (`NAME=value` entries) without llmster's credentials: ``credentialVariables``, and
    /// `LLMSTER_SERVER` when it is a URL with a user name or password.
    public static func childEnvironment() -> [String] {
        var entries: [String] = []
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            let name = String(text.prefix { $0 != "=" })
            let value = text.dropFirst(name.count + 1)
            let carriesUser =
                name == "LLMSTER_SERVER"
                && value.split(separator: "://", maxSplits: 1).dropFirst().first?
                    .prefix { $0 != "/" }.contains("@") == true
            if !credentialVariables.contains(name), !carriesUser { entries.append(text) }
            pointer += 1
        }
        return entries
    }
}

/// Makes `actions` close, in the child, every descriptor past standard error at spawn time (glibc 2.34's closefrom
/// action; the package's glibc has it), so a pipe or socket another thread opened meanwhile cannot leak into it.
public func closeDescriptorsPastStandardError(in actions: inout posix_spawn_file_actions_t) {
    _ = closeFrom?(&actions, 3)
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc module does not import;
/// nil where the C library lacks it.
private let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
        return nil
    }
    return unsafeBitCast(
        symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
}()

/// A program that could not be started.
public struct SpawnError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The program as it was named.
    public let program: String
    /// The error number `posix_spawn` returned.
    public let code: Int32

    /// Records why `program` did not start.
    public init(program: String, code: Int32) {
        self.program = program
        self.code = code
    }

    public var description: String { "cannot run \(program): \(String(cString: strerror(code)))" }
}
