internal import CSystem
import Foundation
import Synchronization
import SystemSupport

/// Turns SIGINT, SIGTERM and SIGHUP into a callback while a reply streams, so it can be cancelled and saved.
///
/// A signal is caught by a `sigaction` handler that records it and wakes a thread of the trap's own, which calls the
/// callback. The handler runs on whichever thread does not block the signal: Dispatch's threads block them all, and
/// Dispatch parks the main thread of an async program in `sigsuspend` to take them. ``takePending()`` hands over, without
/// waiting for either thread, what the handler recorded and what is still pending (read from a `signalfd`), for when an
/// exit status hangs on it. While installed the signals do not kill the process; `remove()` restores their default
/// action. One trap is installed at a time.
public final class SignalTrap: Sendable {
    private let signals: [Int32]
    private let handler: @Sendable (Int32) -> Void
    /// Whether the trap is installed; the lock also hands one batch of signals over at a time.
    private let installed: Mutex<Bool>
    private let stopping: StopRequest?
    /// Reads the trapped signals sent and not yet caught; -1 when none could be opened.
    private let pending: Int32

    /// Installs the trap; `handler` runs on the trap's thread with the signal number, one signal at a time. Should no
    /// descriptor be left to wake that thread with, the signals keep their default action.
    public init(_ signals: [Int32] = [SIGINT, SIGTERM, SIGHUP], handler: @escaping @Sendable (Int32) -> Void) {
        self.signals = signals
        self.handler = handler
        var mask = sigset_t()
        sigemptyset(&mask)
        for number in signals { sigaddset(&mask, number) }
        pending = signalfd(-1, &mask, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        guard let wake = signalWakePipe, let stopping = try? StopRequest() else {
            installed = Mutex(false)
            stopping = nil
            return
        }
        installed = Mutex(true)
        self.stopping = stopping
        caughtSignals.bitwiseAnd(~Self.bits(signals), ordering: .sequentiallyConsistent)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = recordSignal
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        for number in signals { sigaction(number, &action, nil) }
        Thread { [self] in
            var watched = [
                pollfd(fd: stopping.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
                pollfd(fd: pending, events: Int16(POLLIN), revents: 0)
            ]
            while !stopping.isRequested {
                if poll(&watched, 3, -1) < 0, errno != EINTR { break }
                if watched[1].revents != 0 || watched[2].revents != 0 { takePending() }
            }
        }.start()
    }

    /// Hands every signal caught so far to the callback before returning: with Ctrl-C on `ask | cat`, the interruption
    /// is known by the time the closed pipe is seen, since the terminal sends SIGINT to both at once. Signals caught
    /// together go in the order of their numbers.
    public func takePending() {
        installed.withLock { installed in
            guard installed, let wake = signalWakePipe else { return }
            var bytes = [UInt8](repeating: 0, count: 64)
            while read(wake.read, &bytes, bytes.count) > 0 {}
            var caught = caughtSignals.bitwiseAnd(~Self.bits(signals), ordering: .sequentiallyConsistent).oldValue
            var info = signalfd_siginfo()
            while pending >= 0, read(pending, &info, MemoryLayout<signalfd_siginfo>.size) > 0 {
                caught |= Self.bits([Int32(info.ssi_signo)])
            }
            for number in signals.sorted() where caught & Self.bits([number]) != 0 { handler(number) }
        }
    }

    /// Restores the default signal actions.
    public func remove() {
        installed.withLock { installed in
            guard installed else { return }
            installed = false
            for number in signals { signal(number, SIG_DFL) }
        }
        stopping?.request()
    }

    deinit { if pending >= 0 { close(pending) } }

    /// The exit status for a process ended by `signal` (128 + its number).
    public static func exitStatus(for signal: Int32) -> Int32 { 128 + signal }

    private static func bits(_ signals: [Int32]) -> UInt64 { signals.reduce(0) { $0 | 1 << UInt64($1) } }
}

/// Signals caught and not yet handed to the trap, one bit per signal number; set by `recordSignal`.
private let caughtSignals = Atomic<UInt64>(0)

/// The pipe through which `recordSignal` wakes the trap's thread, both ends non-blocking; one for the process, never
/// closed, so a handler running late never writes to a descriptor number used again for something else.
private let signalWakePipe: (read: Int32, write: Int32)? = {
    _ = caughtSignals.load(ordering: .sequentiallyConsistent)
    guard let pipe = try? Descriptor.pipe() else { return nil }
    for end in [pipe.read, pipe.write] { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
    return pipe
}()

/// The `sigaction` handler: only async-signal-safe work, on globals initialised before it was installed.
private func recordSignal(_ number: Int32) {
    caughtSignals.bitwiseOr(1 << UInt64(number), ordering: .sequentiallyConsistent)
    guard let wake = signalWakePipe else { return }
    let saved = errno
    var byte: UInt8 = 0
    _ = write(wake.write, &byte, 1)
    errno = saved
}

/// The first signal received, shared between the trap's thread and the task that waits.
///
/// `SIGPIPE` stands for a reader that went away; a signal the user sent outranks it, since Ctrl-C on `ask | cat` ends
/// the reader too and the pipe may be seen closed before the signal is.
public final class SignalLatch: Sendable {
    private let storage = Mutex<Int32?>(nil)

    public init() {}

    /// Records `signal` unless one was already recorded (other than `SIGPIPE`, which a user's signal replaces).
    public func record(_ signal: Int32) {
        storage.withLock { if $0 == nil || $0 == SIGPIPE && signal != SIGPIPE { $0 = signal } }
    }

    /// The recorded signal.
    public var signal: Int32? { storage.withLock { $0 } }
}
