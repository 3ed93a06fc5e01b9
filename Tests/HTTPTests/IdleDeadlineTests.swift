import Testing

@testable import HTTP

/// The idle limit `CurlTransfer` applies, decided from given instants: a server silent for longer than the limit
/// stops the transfer, one that just made it does not, and a paused transfer's wait is not the server's silence.
@Suite struct IdleDeadlineTests {
    let start = ContinuousClock.now
    let limit = Duration.seconds(10)
    let tick = Duration.milliseconds(1)

    @Test func silenceUpToTheLimitIsAllowedAndJustOverItIsNot() {
        let deadline = IdleDeadline(limit: limit, start: start)
        #expect(!deadline.hasPassed(at: start + limit - tick))
        #expect(!deadline.hasPassed(at: start + limit))
        #expect(deadline.hasPassed(at: start + limit + tick))
    }

    @Test func theLimitIsTheRequestedOneNotAFixedOne() {
        let short = IdleDeadline(limit: .seconds(1), start: start)
        #expect(short.hasPassed(at: start + .seconds(1) + tick))
        let long = IdleDeadline(limit: .seconds(120), start: start)
        #expect(!long.hasPassed(at: start + .seconds(119)))
        #expect(long.hasPassed(at: start + .seconds(120) + tick))
    }

    @Test func whatTheServerSendsStartsTheSilenceOver() {
        var deadline = IdleDeadline(limit: limit, start: start)
        let heard = start + .seconds(8)
        deadline.activity(at: heard)
        #expect(
            !deadline.hasPassed(at: start + limit + tick), "the limit counts from the last chunk, not from the start")
        #expect(!deadline.hasPassed(at: heard + limit))
        #expect(deadline.hasPassed(at: heard + limit + tick))
        #expect(deadline.silence(at: heard + .seconds(3)) == .seconds(3))
    }

    @Test func timeSpentPausedDoesNotCount() {
        var deadline = IdleDeadline(limit: limit, start: start)
        let pausedAt = start + .seconds(4)
        deadline.pause(at: pausedAt)
        #expect(!deadline.hasPassed(at: pausedAt + .seconds(3600)), "a paused transfer never times out")
        let resumedAt = pausedAt + .seconds(60)
        deadline.resume(at: resumedAt)
        #expect(deadline.silence(at: resumedAt) == .seconds(4), "the silence before the pause still counts")
        #expect(!deadline.hasPassed(at: resumedAt + .seconds(6)))
        #expect(deadline.hasPassed(at: resumedAt + .seconds(6) + tick))
    }

    @Test func aChunkThatFillsTheBufferPausesWithNoSilenceCounted() {
        var deadline = IdleDeadline(limit: limit, start: start)
        let full = start + .seconds(9)
        deadline.activity(at: full)
        deadline.pause(at: full)
        let resumedAt = full + .seconds(30)
        deadline.resume(at: resumedAt)
        #expect(!deadline.hasPassed(at: resumedAt + limit))
        #expect(deadline.hasPassed(at: resumedAt + limit + tick))
    }

    @Test func repeatedPausesAddUpOnlyTheTimeBetweenThem() {
        var deadline = IdleDeadline(limit: limit, start: start)
        deadline.pause(at: start + .seconds(3))
        deadline.pause(at: start + .seconds(5))
        deadline.resume(at: start + .seconds(20))
        deadline.resume(at: start + .seconds(25))
        deadline.pause(at: start + .seconds(27))
        deadline.resume(at: start + .seconds(40))
        #expect(
            deadline.silence(at: start + .seconds(40)) == .seconds(10),
            "3 s before the first pause, 7 s between the first resume and the next pause")
        #expect(!deadline.hasPassed(at: start + .seconds(40)))
        #expect(deadline.hasPassed(at: start + .seconds(40) + tick))
    }
}
