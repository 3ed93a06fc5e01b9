extension String.UTF8View {
    /// `index`, or the nearest index before it that starts a character (not inside a multi-byte sequence), but never
    /// before `floor`: where text is cut into pieces without splitting a character.
    func characterBoundary(atOrBefore index: Index, notBefore floor: Index) -> Index {
        var end = index
        while end > floor, end < endIndex, self[end] & 0xC0 == 0x80 { end = self.index(before: end) }
        return end
    }
}
