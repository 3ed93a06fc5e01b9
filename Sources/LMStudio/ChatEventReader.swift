import HTTP

/// Pulls chat events out of an event-stream body on demand: SSE parsing and decoding happen inside `next()`.
///
/// It keeps digests of the streamed texts, against which the parser confirms a long `chat.end` as it arrives; so
/// that they include every delta before that line, a chunk is parsed in pieces of at most ``feedBytes``. Reasoning a
/// model wrote in `<think>` tags is separated first (``ThinkTagSplitter``), so the digests hold the texts as the
/// client sees them.
///
/// `@unchecked Sendable`: its state is touched only from `next()`, which
/// ``LMStudioClient/streamChat(_:)`` calls from `AsyncThrowingStream(unfolding:)`,
/// and that stream's single iterator never runs two `next()` calls at once.
final class ChatEventReader: @unchecked Sendable {
    private var body: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator
    private let server: String
    private var parser = SSEParser()
    private let decoder = ChatEventDecoder()
    private var digests = StreamedTextDigests()
    private var thinkTags = ThinkTagSplitter()
    /// Events the splitter made of one decoded event, not handed out yet.
    private var ready: [ChatEvent] = []
    private var nextReady = 0
    /// The body chunk being parsed, and how much of it was.
    private var chunk: [UInt8] = []
    private var parsed = 0
    /// The most bytes parsed at once: under ``LiftedStrings/minimumLength``, so no line grows long enough to be
    /// lifted in the same piece as the events before it, whose deltas the digests must hold first.
    static let feedBytes = LiftedStrings.minimumLength / 4
    private var pending: [RawSSEEvent] = []
    private var nextPending = 0
    private var ended = false

    /// Reads `body`, reporting transport failures for `server`.
    init(body: AsyncThrowingStream<[UInt8], any Error>, server: String) {
        self.body = body.makeAsyncIterator()
        self.server = server
    }

    /// The next chat event; nil when the body ended.
    func next() async throws -> ChatEvent? {
        while true {
            if nextReady < ready.count {
                let event = ready[nextReady]
                nextReady += 1
                digests.observe(event)
                return event
            }
            ready.removeAll(keepingCapacity: true)
            nextReady = 0
            while nextPending < pending.count {
                let event = pending[nextPending]
                pending[nextPending].data = []  // so a large event is freed once its chat event is built
                nextPending += 1
                if let chatEvent = decoder.decode(event) {
                    if thinkTags.isPassing, chatEvent.isTextDelta {
                        digests.observe(chatEvent)
                        return chatEvent
                    }
                    ready = thinkTags.split(chatEvent)
                    if !ready.isEmpty { break }
                }
            }
            if !ready.isEmpty { continue }
            pending.removeAll(keepingCapacity: true)
            nextPending = 0
            if ended { return nil }
            do {
                if parsed == chunk.count {
                    guard let next = try await body.next() else {
                        ended = true
                        _ = parser.finish()
                        ready = thinkTags.finish()
                        continue
                    }
                    chunk = next
                    parsed = 0
                }
                let end = min(chunk.count, parsed + Self.feedBytes)
                pending = try parser.feedRaw(chunk[parsed..<end], confirmingAgainst: digests)
                parsed = end
            } catch {
                ended = true
                throw Self.midReplyError(error, server: server)
            }
        }
    }

    /// A failure after the reply started: a broken connection keeps its detail, a cancelled transfer reads as cancelled.
    static func midReplyError(_ error: any Error, server: String) -> LMStudioError {
        switch error {
        case HTTPError.transfer(_, let reason): .replyConnectionLost(detail: reason)
        default: LMStudioError.from(error, server: server)
        }
    }
}
