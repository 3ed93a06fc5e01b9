/// Separates reasoning a model wrote inside `<think>…</think>` at the start of its answer, as models whose reasoning
/// the server does not separate do, into reasoning events: the rest of the client sees the reply as if the server had.
///
/// Only a tag that opens a message part (after whitespace) counts, so an answer that mentions `<think>` later keeps it
/// as text. Tags may be cut anywhere between deltas. `chat.end`'s message items are split by the same rule, so the
/// final text says the same as what streamed (``FinalTextRule``) and no reply reads as rewritten because of its tags.
struct ThinkTagSplitter {
    static let opening = "<think>"
    static let closing = "</think>"

    private enum State {
        /// At the start of a message part: text held until it shows whether the part opens with a tag.
        case head(String, messageStarted: Bool)
        /// Inside the tag: `tail` holds text that may be the start of the closing tag.
        case thinking(tail: String)
        /// After the closing tag, until the answer's first text (whitespace after the tag is dropped).
        case afterThinking
        /// Passing events on as they are, until the next message part.
        case passing
    }

    private var state = State.head("", messageStarted: false) {
        didSet { if case .passing = state { isPassing = true } else { isPassing = false } }
    }

    /// Whether deltas go on as they are, with no state to change (once a part's head is decided: most of a stream);
    /// the reader then hands them on without calling `split`.
    private(set) var isPassing = false

    /// The events `event` becomes.
    mutating func split(_ event: ChatEvent) -> [ChatEvent] {
        switch (state, event) {
        case (.head(let held, _), .messageStart):
            state = .head(held, messageStarted: true)
            return []
        case (.head(let held, let started), .messageDelta(let text)):
            return decideHead(held + text, messageStarted: started)
        case (.thinking(let tail), .messageDelta(let text)):
            return think(tail + text)
        case (.afterThinking, .messageDelta(let text)):
            let answer = String(text.drop(while: \.isWhitespace))
            guard !answer.isEmpty else { return [] }
            state = .passing
            return [.messageStart, .messageDelta(answer)]
        case (.thinking, .messageEnd), (.afterThinking, .messageEnd), (.thinking, .messageStart),
            (.afterThinking, .messageStart):
            return []
        case (.head, .messageEnd):
            // A part that ended before its head was decided: what was held goes first, then the end.
            var flushed = flush()
            flushed.append(event)
            state = .head("", messageStarted: false)
            return flushed
        case (_, .chatEnd(let result)):
            var flushed = flush()
            state = .passing
            flushed.append(.chatEnd(Self.splitting(result)))
            return flushed
        case (_, .reasoningStart), (_, .toolCallStart), (_, .toolCallSuccess), (_, .toolCallFailure),
            (_, .reasoningEnd):
            // A part of another kind: what was held goes first, and the next message part is looked at afresh.
            var flushed = flush()
            flushed.append(event)
            state = .head("", messageStarted: false)
            return flushed
        default:
            return [event]
        }
    }

    /// What is still held when the stream ends without `chat.end`.
    mutating func finish() -> [ChatEvent] {
        let flushed = flush()
        state = .passing
        return flushed
    }

    /// Decides, from the text a message part opened with, whether it opens with the tag.
    private mutating func decideHead(_ text: String, messageStarted: Bool) -> [ChatEvent] {
        let start = text.drop(while: \.isWhitespace)
        if start.hasPrefix(Self.opening) {
            return [.reasoningStart] + think(String(start.dropFirst(Self.opening.count)))
        }
        if start.isEmpty || Self.opening.hasPrefix(start) {
            state = .head(text, messageStarted: messageStarted)
            return []
        }
        state = .passing
        return (messageStarted ? [.messageStart] : []) + [.messageDelta(text)]
    }

    /// Reasoning up to the closing tag, holding back what may be its start.
    private mutating func think(_ text: String) -> [ChatEvent] {
        if let close = text.range(of: Self.closing) {
            let reasoning = String(text[..<close.lowerBound])
            let answer = String(text[close.upperBound...].drop(while: \.isWhitespace))
            var events: [ChatEvent] = reasoning.isEmpty ? [] : [.reasoningDelta(reasoning)]
            events.append(.reasoningEnd)
            if answer.isEmpty {
                state = .afterThinking
            } else {
                state = .passing
                events += [.messageStart, .messageDelta(answer)]
            }
            return events
        }
        let kept = Self.closingPrefixLength(atEndOf: text)
        let safe = String(text.dropLast(kept))
        state = .thinking(tail: String(text.suffix(kept)))
        return safe.isEmpty ? [] : [.reasoningDelta(safe)]
    }

    /// The length of the longest end of `text` that begins the closing tag.
    private static func closingPrefixLength(atEndOf text: String) -> Int {
        for length in stride(from: min(closing.count - 1, text.count), to: 0, by: -1)
        where closing.hasPrefix(text.suffix(length)) {
            return length
        }
        return 0
    }

    /// What is held, handed on as it stands: a head that never opened with the tag as answer text, a reasoning tail
    /// as reasoning.
    private mutating func flush() -> [ChatEvent] {
        switch state {
        case .head(let held, let started) where !held.isEmpty:
            return (started ? [.messageStart] : []) + [.messageDelta(held)]
        case .head(_, let started):
            return started ? [.messageStart] : []
        case .thinking(let tail):
            return tail.isEmpty ? [] : [.reasoningDelta(tail)]
        case .afterThinking, .passing:
            return []
        }
    }

    /// `result` with each message item that opens with the tag split into its reasoning and its answer.
    static func splitting(_ result: ChatResult) -> ChatResult {
        var split = result
        split.output = result.output.flatMap { item -> [OutputItem] in
            guard case .message(let text) = item, !text.needsStreamedText, let string = text.string else {
                return [item]
            }
            let start = string.drop(while: \.isWhitespace)
            guard start.hasPrefix(opening) else { return [item] }
            let inside = start.dropFirst(opening.count)
            guard let close = inside.range(of: closing) else { return [.reasoning(OutputText(String(inside)))] }
            let answer = String(inside[close.upperBound...].drop(while: \.isWhitespace))
            return [.reasoning(OutputText(String(inside[..<close.lowerBound])))]
                + (answer.isEmpty ? [] : [.message(OutputText(answer))])
        }
        return split
    }
}
