import Chat
import Foundation
import Markdown
import Simulator
import Synchronization
import TerminalMarkdown

/// Benchmark section `markdown`: streaming cost of `StreamRenderer` against re-rendering the whole reply.
///
/// Feeds generated replies as one snapshot per 128 bytes (the growing text, as the engine delivers it) into a
/// null sink and reports process CPU time: a 1 MiB mixed reply, the same at 256 KiB (linear ≈ 4× apart), a
/// 200 KB reply that is one code fence, a python fence highlighted at 1 MiB and 256 KiB against the same without
/// colour, a 1 MiB and a 256 KiB table, one python line of 16 and of 64 KiB, hostile erl, conf and sh lines of the
/// same sizes (a word of letters among them), and the naive approach (render
/// everything per snapshot) on smaller sizes.
func markdownBench() async throws {
    let capabilities = TerminalCapabilities(width: 100, height: 50, hyperlinks: true)
    let mixed = MarkdownCorpusGenerator.reply(bytes: 1 << 20)
    let quarter = prefix(mixed, bytes: 256 << 10)
    let fence = MarkdownCorpusGenerator.codeFence(bytes: 200_000)

    let full = streamCost(mixed, capabilities: capabilities)
    let small = streamCost(quarter, capabilities: capabilities)
    let code = streamCost(fence, capabilities: capabilities)
    report("stream 1 MiB mixed", full)
    report("stream 256 KiB mixed", small)
    print(String(format: "  ratio 1 MiB / 256 KiB: %.2f (linear ≈ 4)", full.seconds / small.seconds))
    report("stream 200 KB code fence", code)
    let quote = MarkdownCorpusGenerator.longQuote(bytes: 1 << 20)
    let longQuote = streamCost(quote, capabilities: capabilities)
    let quarterQuote = streamCost(prefix(quote, bytes: 256 << 10), capabilities: capabilities)
    report("stream 1 MiB block quote (one container)", longQuote)
    report("stream 256 KiB block quote", quarterQuote)
    print(String(format: "  quote ratio 1 MiB / 256 KiB: %.2f (linear ≈ 4)", longQuote.seconds / quarterQuote.seconds))

    reportScaling("python fence, highlighted", capabilities: capabilities, MarkdownCorpusGenerator.codeFence)
    var noColor = capabilities
    noColor.noColor = true
    report(
        "stream 1 MiB python fence, NO_COLOR (no highlighting)",
        streamCost(MarkdownCorpusGenerator.codeFence(bytes: 1 << 20), capabilities: noColor))
    reportScaling("table, wrapped cells", capabilities: capabilities, MarkdownCorpusGenerator.table)
    reportLongCodeLine(capabilities: capabilities)

    let pipeline = await pipelineCost(mixed, capabilities: capabilities)
    let pipelineQuarter = await pipelineCost(quarter, capabilities: capabilities)
    let pipelineFence = await pipelineCost(fence, capabilities: capabilities)
    report("pipeline 1 MiB (4-byte deltas → DisplayCoalescer → StreamRenderer)", pipeline)
    report("pipeline 256 KiB", pipelineQuarter)
    print(
        String(
            format: "  pipeline ratio 1 MiB / 256 KiB: %.2f (linear ≈ 4)", pipeline.seconds / pipelineQuarter.seconds))
    report("pipeline 200 KB code fence", pipelineFence)

    var naive: [(bytes: Int, cost: Cost)] = []
    for kib in [32, 64, 128] {
        let text = prefix(mixed, bytes: kib << 10)
        let cost = naiveCost(text, capabilities: capabilities)
        naive.append((text.utf8.count, cost))
        report("naive \(kib) KiB mixed (render whole reply per snapshot)", cost)
    }
    let last = naive[naive.count - 1]
    let scale = Double(mixed.utf8.count) / Double(last.bytes)
    let extrapolated = last.cost.seconds * scale * scale
    print(
        String(
            format: "  naive 1 MiB extrapolated (quadratic from %d KiB): %.1f s CPU; stream is %.0fx cheaper",
            last.bytes >> 10, extrapolated, extrapolated / full.seconds))
}

/// Benchmark section `render`: the rendering half of the stream section's terminal figures, in this process: the
/// simulator's prose and mixed texts (2 MiB of each) in 4 KiB and in 64 KiB pieces (what the display takes per
/// update when the server is slow, and when it is faster than the terminal) into a null sink, without the network,
/// the terminal or the simulator beside it, on the stream section's 100×40 colour terminal without hyperlinks
/// (its TERM=xterm-256color). The best of seven short runs, because this machine's speed drifts over seconds; the
/// figure is CPU seconds per MiB. The mix's parse alone follows (the part of its figure no renderer change can
/// remove), then the mix's block kinds one at a time. Then, once each, untrusted replies built on link references at two sizes (linear
/// ≈ 4× apart): labels used before their definitions, and definitions alone.
func renderBench() async throws {
    let capabilities = TerminalCapabilities(width: 100, height: 40)
    // LLMSTER_BENCH_KIND=NAME (a block kind below, or "mix" for the mix alone) runs only that, for a profiler;
    // LLMSTER_BENCH_RUNS=N renders each text N times instead of 7 (1 under callgrind, whose instruction counts,
    // unlike this machine's timings, are the same from run to run).
    let only = ProcessInfo.processInfo.environment["LLMSTER_BENCH_KIND"]
    let runs = ProcessInfo.processInfo.environment["LLMSTER_BENCH_RUNS"].flatMap { Int($0) }.map { max($0, 1) } ?? 7
    for prose in [true, false] where only == nil || (only == "mix" && !prose) {
        let text = ScriptedReply.largeText(bytes: 2 << 20, prose: prose)
        for pieceBytes in [4 << 10, 64 << 10] {
            let best = (0..<runs).map { _ in
                streamCost(text, capabilities: capabilities, pieceBytes: pieceBytes).seconds
            }.min()!
            print(
                String(
                    format: "  stream %@ in %2d KiB pieces: %.3f s CPU per MiB (best of %d)", prose ? "prose" : "mix  ",
                    pieceBytes >> 10, best / 2, runs))
        }
    }
    if only == nil {
        // What every rendering of the mix pays before it draws a line: cmark-gfm's parse with its four extensions and
        // the conversion to blocks, on the pieces the stream commits.
        let pieces = chunks(ScriptedReply.largeText(bytes: 2 << 20, prose: false), bytes: 4 << 10)
        let best = (0..<7).map { _ in
            let start = cpuSeconds()
            for piece in pieces { _ = MarkdownParser.parse(piece) }
            return cpuSeconds() - start
        }.min()!
        print(
            String(
                format:
                    "  parse alone, mix in 4 KiB pieces: %.3f s CPU per MiB (cmark-gfm and the conversion to blocks)",
                best / 2))
    }
    // The mix's blocks one kind at a time (each section's block repeated to 1 MiB): where the mix's cost lies.
    let kinds: [(name: String, block: (Int) -> String)] = [
        ("heading", { "## Section \($0)\n\n" }),
        (
            "paragraph",
            {
                "Paragraph \($0) has *emphasis*, **strong text**, `inline code` and a [link](https://lmstudio.ai/docs/\($0)). "
                    + "Wide characters too: 日本語 and emoji 🙂.\n\n"
            }
        ),
        // A rule keeps the lists apart: lists separated by blank lines alone would be one long list.
        ("list", { "1. first item of \($0)\n2. second item with `code`\n   - nested bullet\n\n---\n\n" }),
        ("table", { "| column | value |\n|---|---|\n| section | \($0) |\n\n" }),
        ("python code", { "```python\ndef section_\($0)():\n    return \($0) * 2\n```\n\n" }),
        ("quote", { "> A quote closing section \($0).\n\n\n" })
    ]
    for kind in kinds where only == nil || only == kind.name {
        var text = ""
        var section = 1
        while text.utf8.count < 1 << 20 {
            text += kind.block(section)
            section += 1
        }
        let best = (0..<5).map { _ in streamCost(text, capabilities: capabilities, pieceBytes: 4 << 10).seconds }.min()!
        print(
            String(
                format: "  stream 1 MiB of %@ blocks only in 4 KiB pieces: %.3f s CPU, %.1f µs a block (best of 5)",
                kind.name, best, best * 1e6 / Double(section - 1)))
    }
    guard only == nil else { return }
    // Untrusted replies that lean on link references: labels used before they are defined (each block is parsed
    // again without the later definitions), and a reply of definitions only (no block commits them).
    for count in [3_000, 12_000] {
        let uses = stride(from: 0, to: count, by: 100).map { start in
            (start..<(start + 100)).map { "[r\($0)]" }.joined(separator: " ")
        }
        let text =
            uses.joined(separator: "\n\n") + "\n\n"
            + (0..<count).map { "[r\($0)]: https://e.example/\($0)" }.joined(separator: "\n") + "\n"
        let seconds = streamCost(text, capabilities: capabilities, pieceBytes: 4 << 10).seconds
        print(
            String(
                format: "  stream %5d labels used before their definitions (%4d KB) in 4 KiB pieces: %.3f s CPU",
                count, text.utf8.count / 1000, seconds))
    }
    for kib in [256, 1024] {
        var text = ""
        var label = 0
        while text.utf8.count < kib << 10 {
            text += "[d\(label)]: https://e.example/\(label)\n"
            label += 1
        }
        let seconds = streamCost(text, capabilities: capabilities, pieceBytes: 4 << 10).seconds
        print(String(format: "  stream %4d KiB of link definitions only in 4 KiB pieces: %.3f s CPU", kib, seconds))
    }
}

/// CPU time and snapshot count of one run.
private struct Cost {
    var seconds: Double
    var snapshots: Int
}

/// Streams the documents `make` writes at 1 MiB and 256 KiB and prints both costs and their ratio.
private func reportScaling(_ label: String, capabilities: TerminalCapabilities, _ make: (Int) -> String) {
    let full = streamCost(make(1 << 20), capabilities: capabilities)
    let quarter = streamCost(make(256 << 10), capabilities: capabilities)
    report("stream 1 MiB \(label)", full)
    report("stream 256 KiB \(label)", quarter)
    print(String(format: "  ratio 1 MiB / 256 KiB: %.2f (linear ≈ 4)", full.seconds / quarter.seconds))
}

/// A python block of one line of 16 KiB and of 64 KiB: rendered whole (the best of five), where highlighting a line
/// costs in proportion to its length (source-highlight's own loop searched the rest of the line again after every
/// token: 42 s for the 64 KiB line), and streamed in 128-byte snapshots, where the end of the unfinished line that
/// the tail shows (at most three screens of it, so a constant cost past 15 KB) is highlighted again at each update;
/// and streamed in line mode (Emacs's M-x shell), which past 16 KiB renders the whole unfinished line again only once
/// it has grown by half or 2 s have passed: as fast as it can, and arriving at 2 KiB/s (a fast local model), where the
/// 2 s bound renders it again every 4 KiB.
private func reportLongCodeLine(capabilities: TerminalCapabilities) {
    var whole: [Int: Double] = [:]
    var streamed: [Int: Double] = [:]
    var lineMode: [Int: Double] = [:]
    var lineModeTimed: [Int: Double] = [:]
    for kib in [16, 64] {
        let text = "```python\n" + String(repeating: "x = 1; ", count: (kib << 10) / 7) + "\n```\n"
        let renderer = MarkdownRenderer(capabilities: capabilities, mode: .always)
        whole[kib] = (0..<5).map { _ in
            let start = cpuSeconds()
            var sink = NullSink()
            sink.write(renderer.render(text))
            return cpuSeconds() - start
        }.min()!
        streamed[kib] = streamCost(text, capabilities: capabilities).seconds
        lineMode[kib] = lineModeCost(text, width: capabilities.width)
        lineModeTimed[kib] = lineModeCost(text, width: capabilities.width, bytesPerSecond: 2048)
        print(
            String(
                format:
                    "  a python line of %2d KiB: rendered whole %.3f s CPU (best of 5), streamed %.3f s CPU, in line mode %.3f s CPU (%.3f s at 2 KiB/s)",
                kib, whole[kib]!, streamed[kib]!, lineMode[kib]!, lineModeTimed[kib]!))
    }
    print(
        String(
            format:
                "  long-line ratios 64 KiB / 16 KiB: whole %.2f (linear ≈ 4), streamed %.2f, in line mode %.2f (%.2f at 2 KiB/s)",
            whole[64]! / whole[16]!, streamed[64]! / streamed[16]!, lineMode[64]! / lineMode[16]!,
            lineModeTimed[64]! / lineModeTimed[16]!))
    // Lines written to be slow: erl's rule with a lookbehind was searched afresh after every token, a conf rule
    // ran to the end of a line without `=` from every quote, erl's function rule tries every split of one long word
    // (stopped at PCRE2's match limit), and sh's `([[:alpha:]]*[-/]+[[:alpha:]]+)+` fails from every letter of one
    // (PCRE2 tries each start in one search, which no limit counts: still its square).
    for (language, unit) in [("erl", "${a} $(b) "), ("conf", "'"), ("erl", "a"), ("sh", "a")] {
        let seconds = [16, 64].map { kib -> Double in
            let text = "```\(language)\n" + String(repeating: unit, count: (kib << 10) / unit.utf8.count) + "\n```\n"
            let renderer = MarkdownRenderer(capabilities: capabilities, mode: .always)
            let start = cpuSeconds()
            var sink = NullSink()
            sink.write(renderer.render(text))
            return cpuSeconds() - start
        }
        print(
            String(
                format:
                    "  a hostile %@ line of 16 and 64 KiB (%@) rendered whole: %.3f s and %.3f s CPU (ratio %.2f, linear ≈ 4)",
                language, unit.count == 1 ? "\"\(unit)\" repeated" : "\"\(unit)\"…", seconds[0], seconds[1],
                seconds[1] / seconds[0]))
    }
}

private func report(_ label: String, _ cost: Cost) {
    print(
        String(
            format: "  %@: %.3f s CPU, %d snapshots, %.1f µs/snapshot", label, cost.seconds, cost.snapshots,
            cost.seconds * 1e6 / Double(max(cost.snapshots, 1))))
}

private func cpuSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Cuts `text` into chunks of about `bytes` bytes at Unicode scalar boundaries.
private func chunks(_ text: String, bytes: Int = 128) -> [String] {
    let utf8 = Array(text.utf8)
    var result: [String] = []
    var start = 0
    while start < utf8.count {
        var end = min(start + bytes, utf8.count)
        while end < utf8.count && utf8[end] & 0xC0 == 0x80 { end += 1 }
        result.append(String(decoding: utf8[start..<end], as: UTF8.self))
        start = end
    }
    return result
}

/// The longest prefix of `text` of at most `bytes` UTF-8 bytes that ends on a Unicode scalar boundary.
private func prefix(_ text: String, bytes: Int) -> String {
    var end = min(bytes, text.utf8.count)
    let utf8 = Array(text.utf8)
    while end > 0 && end < utf8.count && utf8[end] & 0xC0 == 0x80 { end -= 1 }
    return String(decoding: utf8[..<end], as: UTF8.self)
}

private func streamCost(_ text: String, capabilities: TerminalCapabilities, pieceBytes: Int = 128) -> Cost {
    let pieces = chunks(text, bytes: pieceBytes)
    let renderer = StreamRenderer(sink: NullSink(), capabilities: capabilities, mode: .always)
    var reply = ""
    let start = cpuSeconds()
    for piece in pieces {
        reply += piece
        renderer.update(reply)
    }
    renderer.finish(reply)
    return Cost(seconds: cpuSeconds() - start, snapshots: pieces.count)
}

/// CPU time of `LineModeReplyView` (what Emacs's M-x shell gets) shown `text` in 128-byte snapshots.
/// With `bytesPerSecond`, the snapshots carry the seconds such a delivery takes; without, none pass.
private func lineModeCost(_ text: String, width: Int, bytesPerSecond: Double? = nil) -> Double {
    let view = LineModeReplyView(
        sink: NullSink(), capabilities: TerminalCapabilities(isDumb: true, emacs: .comint, width: width))
    var reply = ""
    let start = cpuSeconds()
    for piece in chunks(text) {
        reply += piece
        let seconds = bytesPerSecond.map { Double(reply.utf8.count) / $0 } ?? 0
        view.update(ReplySnapshot(elapsedSeconds: seconds, answer: reply))
    }
    view.update(ReplySnapshot(answer: reply, isFinished: true))
    return cpuSeconds() - start
}

/// A clock the benchmark moves by hand: one display interval per 128 bytes of 4-byte deltas. Its timers never
/// fire, so batches are handed out exactly when a delta arrives after the interval has passed.
private final class BenchClock: DisplayClock {
    private let current = Mutex(Duration.zero)
    func now() -> Duration { current.withLock { $0 } }
    func advance(by step: Duration) { current.withLock { $0 += step } }
    func sleep(until deadline: Duration) async throws { try await Task.sleep(for: .seconds(3600)) }
}

/// The whole display path: 4-byte `message.delta` events into a `DisplayCoalescer` (250 ms interval, the
/// clock stepping so that one interval passes per 128 bytes), its merged batches appended to the answer and
/// rendered by a `StreamRenderer`.
private func pipelineCost(_ text: String, capabilities: TerminalCapabilities) async -> Cost {
    let deltas = chunks(text, bytes: 4)
    let clock = BenchClock()
    let coalescer = DisplayCoalescer(interval: .milliseconds(250), clock: clock)
    let start = cpuSeconds()
    let consumer = Task {
        let renderer = StreamRenderer(sink: NullSink(), capabilities: capabilities, mode: .always)
        var answer = ""
        var rendered = 0
        while let batch = await coalescer.next() {
            for update in batch {
                if case .answerAppended(let more) = update { answer += more }
            }
            if case .ended? = batch.last { renderer.finish(answer) } else { renderer.update(answer) }
            rendered += 1
        }
        return rendered
    }
    await coalescer.apply(.messageStart)
    let step = Duration.milliseconds(250) / 32
    for delta in deltas {
        clock.advance(by: step)
        await coalescer.apply(.messageDelta(delta))
    }
    let state = await coalescer.close()
    await coalescer.finish(ReplyEnd(ending: .completed, status: .complete, errorMessage: nil, state: state))
    let rendered = await consumer.value
    return Cost(seconds: cpuSeconds() - start, snapshots: rendered)
}

private func naiveCost(_ text: String, capabilities: TerminalCapabilities) -> Cost {
    let pieces = chunks(text)
    let renderer = MarkdownRenderer(capabilities: capabilities, mode: .always)
    var sink = NullSink()
    var reply = ""
    let start = cpuSeconds()
    for piece in pieces {
        reply += piece
        sink.write(renderer.render(reply))
    }
    return Cost(seconds: cpuSeconds() - start, snapshots: pieces.count)
}

/// Deterministic Markdown replies for the benchmark.
private enum MarkdownCorpusGenerator {
    /// A reply of about `bytes` bytes mixing headings, paragraphs with inline markup, nested lists, code fences,
    /// tables, block quotes, CJK text and emoji.
    static func reply(bytes: Int) -> String {
        var text = ""
        var section = 0
        while text.utf8.count < bytes {
            section += 1
            text += "## Section \(section): streaming details\n\n"
            text +=
                "This paragraph explains *why* the renderer commits **finished blocks** once and only redraws "
                + "the `tail`, with a [link](https://example.com/docs/\(section)) and some more words to wrap "
                + "across lines at the terminal width, section \(section).\n"
                + "A second line of the same paragraph keeps going for a while so that it wraps too.\n\n"
            text += "混合テキストの段落です。日本語と中文句子，以及한국어 문장도 포함합니다。絵文字 🎉👍🏽🇯🇵 も。\n\n"
            text +=
                "- first point about item \(section)\n- second point\n  - nested detail one\n  - nested detail two\n"
                + "    1. deeper ordered\n    2. deeper again\n- third point with `code`\n\n"
            text += "```swift\n"
            for line in 0..<20 {
                text += "let value\(line) = compute(\(line), section: \(section)) // comment \(line)\n"
            }
            text += "```\n\n"
            text += "| Name | Value | Notes |\n|:-----|------:|-------|\n"
            for row in 0..<(5 + section % 12) {
                text += "| row \(row) | \(row * section) | note for row \(row) 🚀 |\n"
            }
            text += "\n> A quote with **bold** text in section \(section).\n\n---\n\n"
        }
        return text
    }

    /// One five-column table of about `bytes` bytes whose cells wrap at 100 columns.
    static func table(bytes: Int) -> String {
        var text = "| Model | Parameters | Context | Notes on this model | Score |\n|---|--:|--:|---|--:|\n"
        var row = 0
        while text.utf8.count < bytes {
            text +=
                "| model-\(row)-instruct | \(row % 70).\(row % 10)B | \(4096 << (row % 6)) | "
                + "a longer note about model \(row) that has to wrap inside its cell when the table is narrow | \(row % 100) |\n"
            row += 1
        }
        return text + "\n"
    }

    /// One block quote of about `bytes` bytes: paragraphs, a list and a code fence, repeated.
    static func longQuote(bytes: Int) -> String {
        var text = ""
        var part = 0
        while text.utf8.count < bytes {
            part += 1
            text +=
                "> Part \(part) of a long quoted answer with *emphasis* and a [link](https://example.com/\(part)).\n>\n"
                + "> - point one\n> - point two\n>\n> ```sh\n> make part\(part)\n> ```\n>\n"
        }
        return text
    }

    /// One fenced code block of about `bytes` bytes.
    static func codeFence(bytes: Int) -> String {
        var text = "```python\n"
        var line = 0
        while text.utf8.count < bytes {
            text += "    result_\(line) = transform(data[\(line)], factor=\(line % 7))  # step \(line)\n"
            line += 1
        }
        return text + "```\n"
    }
}
