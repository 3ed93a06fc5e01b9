import Dispatch
import Foundation
import Synchronization

/// Turns SIGINT, SIGTERM and SIGHUP into a callback while a reply streams, so it can be cancelled and saved.
///
/// While installed the signals do not kill the process; `remove()` restores their default action.
///
/// `@unchecked Sendable`: both fields are constants, and Dispatch sources (not marked `Sendable`) are thread-safe;
/// the trap holds them only to cancel them.
public final class SignalTrap: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]
    private let signals: [Int32]

    /// Installs the trap; `handler` runs on a background queue with the signal number.
    public init(_ signals: [Int32] = [SIGINT, SIGTERM, SIGHUP], handler: @escaping @Sendable (Int32) -> Void) {
        self.signals = signals
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    /// Restores the default signal actions.
    public func remove() {
        for source in sources { source.cancel() }
        for number in signals { signal(number, SIG_DFL) }
    }

    /// The exit status for a process ended by `signal` (128 + its number).
    public static func exitStatus(for signal: Int32) -> Int32 { 128 + signal }
}

/// The first signal received, shared between the trap's queue and the task that waits.
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
