extension String {
    /// A copy of `bytes` that the renderer assembled from whole strings, ASCII (SGR sequences, spaces) and slices of
    /// strings cut between scalars, so they are valid UTF-8 by construction: the copy skips the check that
    /// `String(decoding:as:)` makes, which costs about 28 instructions a character on box-drawing lines. Debug builds
    /// (the tests, with their corpora of real replies) make the check anyway and stop at a line that fails it.
    init(assembledUTF8 bytes: Span<UInt8>) {
        assert((try? UTF8Span(validating: bytes)) != nil, "the renderer assembled bytes that are not UTF-8")
        // Safe by the construction above: every byte comes from a valid string or is ASCII, cut between scalars.
        self = String(copying: unsafe UTF8Span(unchecked: bytes))
    }
}
