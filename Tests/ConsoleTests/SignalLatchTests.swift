import Console
import Foundation
import Synchronization
import Testing

/// What stopped a reply, as `ask` reports it: the first signal, except that a user's signal outranks a reader that
/// went away (Ctrl-C on `ask | cat` ends the reader too, and the closed pipe may be seen first).
@Suite struct SignalLatchTests {
    @Test func aUsersSignalReplacesAClosedReaderSeenFirst() {
        let latch = SignalLatch()
        latch.record(SIGPIPE)
        latch.record(SIGINT)
        #expect(latch.signal == SIGINT)
    }

    @Test func otherwiseTheFirstSignalStays() {
        let latch = SignalLatch()
        latch.record(SIGTERM)
        latch.record(SIGINT)
        latch.record(SIGPIPE)
        #expect(latch.signal == SIGTERM)
    }
}

/// The trap behind Ctrl-C in every face: a signal already sent is handled by the time `takePending()` returns, so
/// `ask | cat` can tell Ctrl-C from a reader that went away however late the trap's own thread runs.
@Suite struct SignalTrapTests {
    @Test func aSignalAlreadySentIsHandledWhenTakePendingReturns() {
        let handled = Mutex<[Int32]>([])
        let trap = SignalTrap([SIGUSR2]) { signal in handled.withLock { $0.append(signal) } }
        defer { trap.remove() }
        // Unblocked on this thread (a Dispatch thread blocks every signal), a raised signal is caught before `raise`
        // returns, as the main thread catches Ctrl-C in llmster, whether or not the trap's own thread has run since.
        var mask = sigset_t()
        sigemptyset(&mask)
        sigaddset(&mask, SIGUSR2)
        pthread_sigmask(SIG_UNBLOCK, &mask, nil)
        defer { pthread_sigmask(SIG_BLOCK, &mask, nil) }
        for _ in 0..<100 {
            handled.withLock { $0.removeAll() }
            raise(SIGUSR2)
            trap.takePending()
            #expect(handled.withLock { $0 } == [SIGUSR2])
        }
    }
}
