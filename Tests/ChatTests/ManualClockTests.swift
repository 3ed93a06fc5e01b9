import Chat
import Testing

/// The test clock keeps `DisplayClock`'s promise: a cancelled sleep throws at once, without the clock moving.
@Suite struct ManualClockTests {
    @Test func aCancelledSleeperThrowsWithoutTheClockMoving() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(until: .seconds(3600)) }
        var arrivals = clock.sleeperArrived.makeAsyncIterator()
        _ = await arrivals.next()
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.now() == .zero)
    }

    @Test func aSleepInAnAlreadyCancelledTaskThrows() async throws {
        let clock = ManualClock()
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(until: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test func aDueSleeperStillWakesOnAdvance() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(until: .seconds(2)) }
        var arrivals = clock.sleeperArrived.makeAsyncIterator()
        _ = await arrivals.next()
        clock.advance(by: .seconds(2))
        try await sleeper.value
    }
}
