import Foundation
import LMStudio
import Library
import SystemSupport

/// The saves of one streaming reply, and how much of its answer and reasoning the library holds (`saved`), which
/// decides what each save writes.
///
/// While the reply streams, ``saveArrived(_:to:)`` appends what arrived since the last save; run once more before a
/// final event that replaces what streamed, it leaves the streamed version whole in the library, which
/// ``keepStreamedVersion(of:in:)`` then copies into an alternative. ``saveFinal(_:status:error:to:)`` writes the
/// rest and the final status; when that fails for lack of space, ``saveWhatFits(_:to:)`` keeps what it can. A
/// value: the periodic saves hand it on when they stop, so one save runs at a time and each starts where the last
/// ended.
struct ReplyPersistence: Sendable {
    /// The reply's message.
    let messageId: String
    /// What the saves so far hold; an answer or reasoning shorter than this was rewritten.
    private(set) var saved = SavedLength()

    init(messageId: String) {
        self.messageId = messageId
    }

    /// What a save writes of a streaming reply: its state, whose answer and reasoning may be cut to a stretch after
    /// `start` when the library already holds what comes before.
    struct Arrived: Sendable {
        /// The most of the answer, and of the reasoning, that one periodic save copies out of a reply.
        static let bytesPerSave = 4 << 20

        private(set) var state: ReplyState
        private(set) var start = SavedLength()
        /// Where each tool call of `state` sits in the whole answer and reasoning, which a cut state cannot say.
        private(set) var toolCallOffsets: [(answer: Int, reasoning: Int)]

        /// The whole of `state`.
        init(_ state: ReplyState) {
            self.state = state
            toolCallOffsets = state.toolCallOffsets
        }

        /// The text of `state` after `saved`, at most `limit` bytes each of the answer and the reasoning, copied out:
        /// a save runs beside the stream, and while it held a reference to the answer, the next append copied the
        /// whole answer beside it (a long reply in memory twice, and copied again at each save). Whole when the text
        /// was rewritten or is shorter than `saved`.
        init(cutting state: ReplyState, after saved: SavedLength, atMost limit: Int = bytesPerSave) {
            self.init(state)
            guard !state.isRewritten, state.answer.utf8.count >= saved.text,
                state.reasoning.utf8.count >= saved.reasoning
            else { return }
            self.state.answer = Self.text(state.answer, from: saved.text, atMost: limit)
            self.state.reasoning = Self.text(state.reasoning, from: saved.reasoning, atMost: limit)
            start = saved
            // The calls the cut text reaches: a later one saved now would show before text that comes before it.
            let reach = length
            let reached = toolCallOffsets.prefix { $0.answer <= reach.text && $0.reasoning <= reach.reasoning }.count
            guard reached < toolCallOffsets.count else { return }
            // The first call left for a later save ends the stretches too: the answer (or reasoning) after it, saved
            // now, would follow the reasoning (or answer) before it without the call between.
            let next = toolCallOffsets[reached]
            self.state.answer = Self.prefix(self.state.answer, bytes: next.answer - start.text)
            self.state.reasoning = Self.prefix(self.state.reasoning, bytes: next.reasoning - start.reasoning)
            toolCallOffsets.removeLast(toolCallOffsets.count - reached)
            self.state.toolCalls.removeLast(self.state.toolCalls.count - reached)
        }

        /// The lengths of the answer and reasoning up to where `state` reaches.
        var length: SavedLength {
            SavedLength(
                text: start.text + state.answer.utf8.count, reasoning: start.reasoning + state.reasoning.utf8.count)
        }

        /// At most `limit` UTF-8 bytes of `text` from `offset` (the end of text appended earlier, so a character
        /// boundary), ending at a scalar boundary and not between two newlines (the separator of two parts, which the
        /// library reads whole) unless the stretch is all newlines: saves go on through a run of them.
        private static func text(_ text: String, from offset: Int, atMost limit: Int) -> String {
            let utf8 = text.utf8
            let start = utf8.index(utf8.startIndex, offsetBy: offset)
            var end = utf8.index(start, offsetBy: limit, limitedBy: utf8.endIndex) ?? utf8.endIndex
            while end > start, end < utf8.endIndex, utf8[end] & 0xC0 == 0x80 { utf8.formIndex(before: &end) }
            var beforeNewlines = end
            while beforeNewlines > start, beforeNewlines < utf8.endIndex, utf8[beforeNewlines] == 0x0A,
                utf8[utf8.index(before: beforeNewlines)] == 0x0A
            {
                utf8.formIndex(before: &beforeNewlines)
            }
            if beforeNewlines > start { end = beforeNewlines }
            return String(decoding: utf8[start..<end], as: UTF8.self)
        }

        /// The first `bytes` UTF-8 bytes of `text` (a boundary where text was appended), or all of it when it is shorter.
        private static func prefix(_ text: String, bytes: Int) -> String {
            guard bytes < text.utf8.count else { return text }
            return String(Substring(text.utf8.prefix(max(bytes, 0))))
        }
    }

    /// Saves the text streamed since the last save as pieces of at most `LibraryStore.pieceBytes`, or, when the
    /// answer was rewritten or is shorter than what is saved, the reply whole, still streaming. A failure leaves
    /// `saved` as it was, so the next save retries it (and the final save reports its own).
    mutating func saveArrived(_ state: ReplyState, to library: LibraryStore) {
        saveArrived(Arrived(state), to: library)
    }

    /// `saveArrived(_:to:)` of what `arrived` holds; a state cut after `saved` (`Arrived(cutting:after:atMost:)`) is
    /// never one to save whole. `saved` then reaches as far as the cut.
    mutating func saveArrived(_ arrived: Arrived, to library: LibraryStore) {
        let state = arrived.state
        let length = arrived.length
        do {
            if state.isRewritten || length.text < saved.text || length.reasoning < saved.reasoning {
                try saveWhole(state, status: .streaming, error: nil, to: library)
                saved = length
                return
            }
            let after = SavedLength(
                text: saved.text - arrived.start.text, reasoning: saved.reasoning - arrived.start.reasoning)
            try library.appendReplyPieces(
                messageId: messageId, content(of: state, status: .streaming, error: nil), after: after)
            saved = length
            try saveToolCalls(state.toolCalls, offsets: arrived.toolCallOffsets, to: library)
        } catch {}
    }

    /// Copies the streamed version, which the last ``saveArrived(_:to:)`` left whole in the library, into an
    /// alternative when the final event rewrote, shortened or dropped what streamed; returns its message id, nil when
    /// the reply kept what streamed.
    func keepStreamedVersion(of state: ReplyState, in library: LibraryStore) throws -> String? {
        guard state.isRewritten else { return nil }
        return try library.keepStreamedVersion(of: messageId)
    }

    /// The final save, as complete, incomplete or error: when what is saved is still the start of the reply, only
    /// the rest is written (`LibraryStore.finishReply`); a rewritten reply, or one nothing was saved of yet, is saved
    /// whole.
    func saveFinal(_ state: ReplyState, status: MessageStatus, error: String?, to library: LibraryStore) throws {
        guard !state.isRewritten, saved.text + saved.reasoning > 0, saved.text <= state.answer.utf8.count,
            saved.reasoning <= state.reasoning.utf8.count
        else { return try saveWhole(state, status: status, error: error, to: library) }
        try library.finishReply(messageId: messageId, content(of: state, status: status, error: error), after: saved)
        try saveToolCalls(state.toolCalls, offsets: state.toolCallOffsets, to: library)
    }

    /// After the final save failed (a full disk, a file size limit), keeps what was saved while streaming and adds
    /// the longest part of the rest of the answer that still fits, halving from the whole rest (the rest of the
    /// reasoning goes only with the whole rest of the answer), marked incomplete; returns the message saying how
    /// much was kept, nil when not even the reply's status could be written.
    func saveWhatFits(_ state: ReplyState, to library: LibraryStore) -> String? {
        let utf8 = state.answer.utf8
        let total = utf8.count
        let start = utf8.index(utf8.startIndex, offsetBy: min(saved.text, total))
        var length = total - min(saved.text, total)
        var reasoning = String(decoding: state.reasoning.utf8.dropFirst(saved.reasoning), as: UTF8.self)
        try? library.checkpoint()
        while true {
            let end = utf8.characterBoundary(atOrBefore: utf8.index(start, offsetBy: length), notBefore: start)
            let kept = utf8.distance(from: utf8.startIndex, to: end)
            let message =
                "The library could not store the whole reply (is the disk full?): kept the first "
                + "\(Self.megabytes(kept)) of \(Self.megabytes(total)) of the answer."
            var rest = content(of: state, status: .incomplete, error: message)
            rest.text = String(decoding: utf8[start..<end], as: UTF8.self)
            rest.reasoning = reasoning
            if (try? library.appendReplyPieces(messageId: messageId, rest)) != nil { return message }
            if length == 0 { return nil }
            length = length > 4096 ? length / 2 : 0
            reasoning = ""
        }
    }

    /// Saves the reply whole, replacing what was saved of it.
    private func saveWhole(_ state: ReplyState, status: MessageStatus, error: String?, to library: LibraryStore) throws
    {
        try library.updateReply(
            messageId: messageId, content(of: state, status: status, error: error), rewritten: state.isRewritten)
        try saveToolCalls(state.toolCalls, offsets: state.toolCallOffsets, to: library)
    }

    /// The reply's answer, reasoning, stats and ids, with `status` and `error`.
    private func content(of state: ReplyState, status: MessageStatus, error: String?) -> MessageContent {
        MessageContent(
            text: state.answer, reasoning: state.reasoning, status: status, error: error,
            statsJSON: state.stats.flatMap(Self.json), modelInstanceId: state.modelInstanceId,
            responseId: state.responseId)
    }

    private func saveToolCalls(
        _ toolCalls: [ToolCallState], offsets: [(answer: Int, reasoning: Int)], to library: LibraryStore
    ) throws {
        try library.replaceToolCalls(
            messageId: messageId,
            toolCalls.enumerated().map { position, call in
                ToolCallRecord(
                    messageId: messageId, position: position, name: call.name,
                    argumentsJSON: call.arguments?.jsonString ?? "{}", output: call.output,
                    providerJSON: call.provider.flatMap(Self.json), status: call.status.record,
                    failureReason: call.status.failureReason,
                    answerOffset: offsets[position].answer, reasoningOffset: offsets[position].reasoning)
            })
    }

    private static func megabytes(_ bytes: Int) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }

    private static func json(_ value: some Encodable) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) }
    }
}

extension ToolCallState.Status {
    fileprivate var record: ToolCallStatus {
        switch self {
        case .running: .running
        case .succeeded: .succeeded
        case .failed: .failed
        }
    }

    fileprivate var failureReason: String? {
        if case .failed(let reason) = self { reason } else { nil }
    }
}
