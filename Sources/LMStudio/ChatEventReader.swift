import HTTP

/// Pulls chat events out of an event-stream body on demand: SSE parsing and decoding happen inside `next()`.
///
/// `@unchecked Sendable`: its state is touched only from `next()`, which
/// ``LMStudioClient/streamChat(_:)`` calls from `AsyncThrowingStream(unfolding:)`,
/// and that stream's single iterator never runs two `next()` calls at once.
final class ChatEventReader: @unchecked Sendable {
    private var body: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator
    private let server: String
    private var parser = SSEParser()
    private let decoder = ChatEventDecoder()
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
            while nextPending < pending.count {
                let event = pending[nextPending]
                pending[nextPending].data = []  // so a large event is freed once its chat event is built
                nextPending += 1
                if let chatEvent = decoder.decode(event) { return chatEvent }
            }
            pending.removeAll(keepingCapacity: true)
            nextPending = 0
            if ended { return nil }
            do {
                guard let chunk = try await body.next() else {
                    ended = true
                    _ = parser.finish()
                    return nil
                }
                pending = try parser.feedRaw(chunk)
            } catch {
                ended = true
                throw Self.midReplyError(error, server: server)
            }
        }
    }

    /// A failure after the reply started: a broken connection keeps its detail, a cancelled transfer reads as cancelled.
    static func midReplyError(_ error: any Error, server: String) -> LMStudioError {
        switch error {
        case let HTTPError.transfer(_, reason): .replyConnectionLost(detail: reason)
        default: LMStudioError.from(error, server: server)
        }
    }
}
