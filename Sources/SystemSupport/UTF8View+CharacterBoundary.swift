extension String.UTF8View {
    /// `index`, or the nearest index before it that starts a character (not inside a multi-byte sequence), but never
    /// before `floor`: where text is cut into pieces without splitting a character.
    public func characterBoundary(atOrBefore index: Index, notBefore floor: Index) -> Index {
        var end = index
        while end > floor, end < endIndex, self[end] & 0xC0 == 0x80 { end = self.index(before: end) }
        return end
    }

    /// The ranges after the first `offset` bytes, at most `length` bytes each (more only for a character longer
    /// than that), cut between characters: where a long text is saved or handed out piece by piece.
    public func pieces(after offset: Int, atMost length: Int) -> [Range<Index>] {
        var start = index(startIndex, offsetBy: Swift.min(offset, count))
        var ranges: [Range<Index>] = []
        while start < endIndex {
            var end = characterBoundary(
                atOrBefore: index(start, offsetBy: length, limitedBy: endIndex) ?? endIndex, notBefore: start)
            if end == start { end = endIndex }
            ranges.append(start..<end)
            start = end
        }
        return ranges
    }
}
