import Chat
import LMStudio
import Testing

@Suite struct DisplayCoalescerTests {
    private func end(_ coalescer: DisplayCoalescer, _ ending: ReplyEnding = .completed) async {
        let state = await coalescer.close()
        await coalescer.finish(ReplyEnd(ending: ending, status: .complete, errorMessage: nil, state: state))
    }

    @Test func firstBatchAtOnceThenAtMostOncePerIntervalWithAppendsMerged() async {
        let clock = ManualClock()
        let coalescer = DisplayCoalescer(interval: .milliseconds(250), clock: clock)

        await coalescer.apply(.messageStart)
        let first = await coalescer.next()
        #expect(first == [.stageChanged(.answering)])
        // The reply's first words are not held behind the stage line handed out a moment before.
        await coalescer.apply(.messageDelta("a"))
        #expect(await coalescer.next() == [.answerAppended("a")])

        // Deltas inside the interval are merged: nothing is handed out until the timer fires.
        var sleepers = clock.sleeperArrived.makeAsyncIterator()
        async let second = coalescer.next()
        await coalescer.apply(.messageDelta("b"))
        await sleepers.next()
        await coalescer.apply(.messageDelta("c"))
        await coalescer.apply(.messageDelta("d"))
        clock.advance(by: .milliseconds(250))
        #expect(await second == [.answerAppended("bcd")])
    }

    /// Progress lines before the reply's text keep to the interval; the first reasoning text goes out at once, and
    /// the answer's first text after it waits its turn like any later text.
    @Test func onlyTheFirstTextSkipsTheInterval() async {
        let clock = ManualClock()
        let coalescer = DisplayCoalescer(interval: .milliseconds(250), clock: clock)
        await coalescer.apply(.promptProcessingProgress(0.5))
        _ = await coalescer.next()
        var sleepers = clock.sleeperArrived.makeAsyncIterator()
        async let progress = coalescer.next()
        await coalescer.apply(.promptProcessingProgress(0.75))
        await sleepers.next()
        clock.advance(by: .milliseconds(250))
        #expect(await progress == [.stageChanged(.processingPrompt(progress: 0.75))])

        await coalescer.apply(.reasoningStart)
        await coalescer.apply(.reasoningDelta("hm"))
        #expect(await coalescer.next() == [.stageChanged(.reasoning), .reasoningAppended("hm")])
        async let answer = coalescer.next()
        await coalescer.apply(.messageStart)
        await sleepers.next()
        await coalescer.apply(.messageDelta("x"))
        clock.advance(by: .milliseconds(250))
        let batch = await answer
        #expect(batch?.last == .answerAppended("x"), "\(String(describing: batch))")
    }

    /// Text arriving faster than the consumer takes it is handed out in pieces of at most `batchTextBytes`, back to
    /// back without waiting for the interval, cut between characters, adding up to the text exactly.
    @Test func aLongAppendIsHandedOutInBoundedPiecesAtOnce() async {
        let clock = ManualClock()
        let coalescer = DisplayCoalescer(interval: .seconds(10), clock: clock)
        await coalescer.apply(.messageStart)
        _ = await coalescer.next()
        let delta = String(repeating: "é日👩‍💻 abc\n", count: 5_000)
        let count = 3 * DisplayCoalescer.batchTextBytes / delta.utf8.count
        for _ in 0..<count { await coalescer.apply(.messageDelta(delta)) }
        clock.advance(by: .seconds(10))
        var pieces: [String] = []
        for _ in 0..<3 {
            guard let batch = await coalescer.next(), case .answerAppended(let piece)? = batch.last else { break }
            pieces.append(piece)
        }
        #expect(pieces.count == 3, "three pieces within one interval")
        #expect(pieces.allSatisfy { $0.utf8.count <= DisplayCoalescer.batchTextBytes })
        await end(coalescer)
        while let batch = await coalescer.next() {
            for case .answerAppended(let piece) in batch { pieces.append(piece) }
        }
        #expect(pieces.joined() == String(repeating: delta, count: count))
    }

    /// A reply that streamed whole before the consumer took any of it, then ended: its text still comes in pieces
    /// of at most `batchTextBytes` (the end is not a reason to copy it whole), in order, with the end last.
    @Test func aLongAppendFollowedByTheEndIsStillHandedOutInBoundedPieces() async {
        let clock = ManualClock()
        let coalescer = DisplayCoalescer(interval: .seconds(10), clock: clock)
        await coalescer.apply(.messageStart)
        _ = await coalescer.next()
        let delta = String(repeating: "é日👩‍💻 abc\n", count: 5_000)
        let count = 3 * DisplayCoalescer.batchTextBytes / delta.utf8.count
        for _ in 0..<count { await coalescer.apply(.messageDelta(delta)) }
        await coalescer.apply(.messageEnd)
        await coalescer.apply(
            .chatEnd(ChatResult(output: [.message(OutputText(String(repeating: delta, count: count)))])))
        await end(coalescer)
        var pieces: [String] = []
        var updates: [ReplyUpdate] = []
        while let batch = await coalescer.next() {
            for update in batch {
                if case .answerAppended(let piece) = update { pieces.append(piece) } else { updates.append(update) }
            }
        }
        #expect(pieces.count >= 3)
        #expect(pieces.allSatisfy { $0.utf8.count <= DisplayCoalescer.batchTextBytes })
        #expect(pieces.joined() == String(repeating: delta, count: count))
        guard case .ended? = updates.last else {
            Issue.record("the end comes last, after all the text: \(updates)")
            return
        }
    }

    @Test func slowConsumerGetsEverythingMergedNothingDropped() async {
        let clock = ManualClock()
        let coalescer = DisplayCoalescer(interval: .milliseconds(250), clock: clock)
        // Nobody reads while many intervals pass: the pending batch keeps growing, merged.
        await coalescer.apply(.promptProcessingProgress(0.5))
        await coalescer.apply(.promptProcessingProgress(1))
        await coalescer.apply(.reasoningStart)
        for index in 0..<10 {
            await coalescer.apply(.reasoningDelta("r\(index) "))
            clock.advance(by: .milliseconds(300))
        }
        for index in 0..<10 {
            await coalescer.apply(.messageDelta("\(index)"))
            clock.advance(by: .milliseconds(300))
        }
        await end(coalescer)
        var batches: [[ReplyUpdate]] = []
        while let batch = await coalescer.next() { batches.append(batch) }
        #expect(batches.count == 1)
        let updates = batches.flatMap { $0 }
        #expect(updates.first == .stageChanged(.reasoning), "adjacent stage changes merge, latest wins")
        #expect(updates.contains(.reasoningAppended("r0 r1 r2 r3 r4 r5 r6 r7 r8 r9 ")))
        #expect(updates.contains(.answerAppended("0123456789")))
        guard case .ended(let end)? = updates.last else {
            Issue.record("the end is not last: \(updates)")
            return
        }
        #expect(end.state.answer == "0123456789")
    }

    /// Whatever the chunking and however the consumer keeps up, the appended texts add up to the final state.
    @Test(arguments: [1, 2, 3, 7, 64])
    func appendsAddUpToTheFinalStateForAnyChunking(chunk: Int) async {
        let clock = ManualClock()
        let coalescer = DisplayCoalescer(interval: .milliseconds(250), clock: clock)
        let reasoning = String(repeating: "Thinking about Grüße, 日本 and 👩‍💻. ", count: 40)
        let answer = String(repeating: "Answer **text** with é and 🙂\n", count: 40)
        let consumer = Task {
            var updates: [ReplyUpdate] = []
            while let batch = await coalescer.next() { updates += batch }
            return updates
        }
        var events: [ChatEvent] = [.reasoningStart]
        events += pieces(reasoning, chunk).map(ChatEvent.reasoningDelta)
        events += [.reasoningEnd, .messageStart]
        events += pieces(answer, chunk).map(ChatEvent.messageDelta)
        for (position, event) in events.enumerated() {
            await coalescer.apply(event)
            if position % 5 == 0 { clock.advance(by: .milliseconds(100)) }
        }
        await end(coalescer)
        let updates = await consumer.value
        let replayed = ReplyAccumulatorTests.replay(updates)
        let state = await coalescer.state
        #expect(replayed.answer == answer)
        #expect(replayed.reasoning == reasoning)
        #expect(state.answer == answer)
    }

    private func pieces(_ text: String, _ size: Int) -> [String] {
        let characters = Array(text)
        return stride(from: 0, to: characters.count, by: size).map {
            String(characters[$0..<min($0 + size, characters.count)])
        }
    }

    @Test(arguments: [ReplyEnding.completed, .cancelled, .interrupted("cut")])
    func endingsFlushImmediately(ending: ReplyEnding) async {
        let clock = ManualClock()
        let coalescer = DisplayCoalescer(interval: .seconds(10), clock: clock)
        await coalescer.apply(.messageDelta("Hello"))
        _ = await coalescer.next()
        await coalescer.apply(.messageDelta(", world"))
        // The interval has not passed, yet the end hands out the rest at once and closes the sequence.
        await end(coalescer, ending)
        let last = await coalescer.next()
        #expect(last?.first == .answerAppended(", world"))
        guard case .ended(let end)? = last?.last else {
            Issue.record("no end in \(String(describing: last))")
            return
        }
        #expect(end.ending == ending)
        #expect(end.state.answer == "Hello, world")
        #expect(await coalescer.next() == nil)
    }

    @Test func reasoningStillOpenAtTheEndIsTimedByTheEngineClock() async {
        let clock = ManualClock()
        let coalescer = DisplayCoalescer(interval: .zero, clock: clock)
        clock.advance(by: .seconds(1))
        await coalescer.apply(.reasoningDelta("thinking"))
        clock.advance(by: .seconds(3))
        let state = await coalescer.close()
        #expect(state.reasoningSeconds == 3)
    }

    /// Text still pending when `chat.end` arrives is handed out as streamed, before the final answer's extension or rewrite.
    @Test(arguments: [
        ("héllo wörld 👩‍💻!", [ReplyUpdate.answerAppended("héllo wörld 👩‍💻"), .answerAppended("!")]),
        ("rewritten", [.answerAppended("héllo wörld 👩‍💻"), .answerReplaced("rewritten")])
    ])
    func pendingTextSurvivesTheFinalEvent(final: String, expected: [ReplyUpdate]) async {
        let clock = ManualClock()
        let coalescer = DisplayCoalescer(interval: .milliseconds(250), clock: clock)
        await coalescer.apply(.messageStart)
        #expect(await coalescer.next() == [.stageChanged(.answering)])
        await coalescer.apply(.messageDelta("héllo "))
        await coalescer.apply(.messageDelta("wörld 👩‍💻"))
        await coalescer.apply(.chatEnd(ChatResult(output: [.message(OutputText(final))])))
        await end(coalescer)
        var texts: [ReplyUpdate] = []
        while let batch = await coalescer.next() {
            texts += batch.filter {
                switch $0 {
                case .answerAppended, .answerReplaced: true
                default: false
                }
            }
        }
        #expect(texts == expected)
    }
}
