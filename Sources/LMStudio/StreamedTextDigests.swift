/// Keyed digests of the texts a chat stream's deltas carried, so a `chat.end` repeating them can be confirmed
/// while it arrives instead of being held whole beside the streamed reply (see ``LiteralLifter``).
///
/// The deltas are cut into segments where ``ReplyPartBoundaries`` starts a part of answer text or reasoning, the
/// rule the reply's accumulator builds its parts by, so a text confirmed against a segment starts where a part of
/// the streamed reply does. Each segment keeps its length and the digest of every ``checkpointBytes``-byte prefix.
/// Digests use `Hasher`, seeded anew in each process, so a server cannot craft two texts that collide.
struct StreamedTextDigests: Sendable {
    /// Prefix digests are kept at every multiple of this many bytes.
    static let checkpointBytes = 64 << 10

    /// One run of deltas: its length, its running digest and the digests of its checkpoint prefixes.
    struct Segment: Sendable {
        fileprivate(set) var count = 0
        fileprivate(set) var checkpoints: [Int] = []
        private var hasher = Hasher()

        /// The digest of the whole segment so far.
        var digest: Int { hasher.finalize() }

        fileprivate mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
            TextDigest.feed(bytes, into: &hasher, count: &count) { checkpoints.append($0) }
        }
    }

    private(set) var segments: [Segment] = []
    private var boundaries = ReplyPartBoundaries()

    /// Takes note of `event`: the segment it starts, and its delta text.
    mutating func observe(_ event: ChatEvent) {
        let placement = boundaries.place(event)
        if placement == .starts(.message) || placement == .starts(.reasoning) { segments.append(Segment()) }
        switch event {
        case .messageDelta(var text), .reasoningDelta(var text):
            guard placement != .outside, !text.isEmpty else { return }
            text.withUTF8 { segments[segments.count - 1].append($0) }
        default:
            break
        }
    }
}

/// The keyed digest both sides of a `chat.end` confirmation compute: streamed segments, lifted literals, and the
/// accumulator checking a confirmed text against its own.
enum TextDigest {
    /// The digest of `bytes`, the same however they were split when fed.
    static func of(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        return hasher.finalize()
    }

    /// Feeds `bytes` to `hasher`, `count` counting them; `checkpoint` gets the digest of every prefix whose length
    /// is a multiple of ``StreamedTextDigests/checkpointBytes``.
    static func feed(
        _ bytes: UnsafeBufferPointer<UInt8>, into hasher: inout Hasher, count: inout Int,
        checkpoint: (Int) -> Void
    ) {
        var rest = bytes
        while !rest.isEmpty {
            let room = StreamedTextDigests.checkpointBytes - count % StreamedTextDigests.checkpointBytes
            let taken = min(room, rest.count)
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: rest[..<taken])))
            count += taken
            rest = UnsafeBufferPointer(rebasing: rest[taken...])
            if taken == room { checkpoint(hasher.finalize()) }
        }
    }
}
