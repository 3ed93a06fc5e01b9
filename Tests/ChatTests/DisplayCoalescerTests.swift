import Chat
import LMStudio
import Testing

@Suite struct DisplayCoalescerTests {
    @Test func firstSnapshotAtOnceThenAtMostOncePerInterval() async {
        let clock = ManualClock()
        let coalescer = DisplayCoalescer(interval: .milliseconds(250), clock: clock)
        var snapshots = coalescer.snapshots.makeAsyncIterator()

        await coalescer.apply(.messageStart)
        let first = await snapshots.next()
        #expect(first?.sequence == 0)

        // Deltas inside the interval are combined: nothing is published until the timer fires.
        var sleepers = clock.sleeperArrived.makeAsyncIterator()
        await coalescer.apply(.messageDelta("a"))
        await sleepers.next()
        await coalescer.apply(.messageDelta("b"))
        await coalescer.apply(.messageDelta("c"))
        clock.advance(by: .milliseconds(250))
        let second = await snapshots.next()
        #expect(second?.sequence == 1)
        #expect(second?.answer == "abc")
        #expect(second?.ending == .streaming)
    }

    @Test func slowConsumerSeesOnlyTheLatestSnapshot() async {
        let clock = ManualClock()
        let coalescer = DisplayCoalescer(interval: .milliseconds(250), clock: clock)
        // Nobody reads while many intervals pass: only the newest snapshot stays buffered.
        for index in 0..<10 {
            await coalescer.apply(.messageDelta("\(index)"))
            clock.advance(by: .milliseconds(300))
        }
        await coalescer.finish(.completed)
        var seen: [DisplaySnapshot] = []
        for await snapshot in coalescer.snapshots { seen.append(snapshot) }
        #expect(seen.count == 1)
        #expect(seen.first?.answer == "0123456789")
        #expect(seen.first?.isFinal == true)
    }

    @Test(arguments: [DisplaySnapshot.Ending.completed, .cancelled, .interrupted("cut")])
    func endingsFlushImmediately(ending: DisplaySnapshot.Ending) async {
        let clock = ManualClock()
        let coalescer = DisplayCoalescer(interval: .seconds(10), clock: clock)
        var snapshots = coalescer.snapshots.makeAsyncIterator()
        await coalescer.apply(.messageDelta("Hello"))
        _ = await snapshots.next()
        await coalescer.apply(.messageDelta(", world"))
        // The interval has not passed, yet the ending publishes the rest at once and closes the stream.
        await coalescer.finish(ending)
        let last = await snapshots.next()
        #expect(last?.answer == "Hello, world")
        #expect(last?.ending == ending)
        #expect(await snapshots.next() == nil)
    }

    @Test func reasoningPreviewIsTheLast4096CharactersButStateKeepsAll() async {
        let coalescer = DisplayCoalescer(interval: .zero, clock: ManualClock())
        let long = String(repeating: "0123456789", count: 1000) + "日本👩‍💻"
        await coalescer.apply(.reasoningStart)
        await coalescer.apply(.reasoningDelta(long))
        let state = await coalescer.finish(.completed)
        var last: DisplaySnapshot?
        for await snapshot in coalescer.snapshots { last = snapshot }
        #expect(last?.reasoningPreview.count == 4096)
        #expect(last?.reasoningPreview.hasSuffix("日本👩‍💻") == true)
        #expect(last?.reasoningCharacterCount == long.count)
        #expect(state.reasoning == long)
    }
}
