import Console
import Foundation
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
