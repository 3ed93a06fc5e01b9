import Glibc

/// Finds single bytes in UTF-8 text with `memchr`: the scans the stream and the parser make over each update's
/// text (newlines, brackets) run once per update over tens of KiB, so they read the bytes in place.
package enum ByteSearch {
    /// Calls `body` with the text's bytes, in place when they are contiguous (native strings) or else copied once.
    package static func withBytes<Result>(
        _ utf8: some Collection<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Result
    )
        -> Result
    {
        if let result = utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(utf8).withUnsafeBufferPointer(body)
    }

    /// Visits the offset of each `byte` in `bytes`, in order, until `visit` returns false.
    package static func forEach(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, _ visit: (Int) -> Bool) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count, let found = memchr(base + offset, Int32(byte), bytes.count - offset) {
            let position = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            guard visit(position) else { return }
            offset = position + 1
        }
    }

    /// The lines of `text` split at every newline byte (a Character split would keep `\r\n` together), without their
    /// newlines: one more than there are newlines (a final newline ends with an empty line).
    package static func lines(of text: Substring) -> [Substring] {
        let utf8 = text.utf8
        var lines: [Substring] = []
        var start = utf8.startIndex
        withBytes(utf8) { bytes in
            forEach(0x0A, in: bytes) { position in
                let end = utf8.index(utf8.startIndex, offsetBy: position)
                lines.append(Substring(utf8[start..<end]))
                start = utf8.index(after: end)
                return true
            }
        }
        lines.append(Substring(utf8[start...]))
        return lines
    }

    /// Whether `utf8` holds `byte`.
    package static func contains(_ byte: UInt8, in utf8: some Collection<UInt8>) -> Bool {
        withBytes(utf8) { bytes in bytes.baseAddress.map { memchr($0, Int32(byte), bytes.count) != nil } ?? false }
    }

    /// Whether `utf8` holds the bytes of `needle` in a row: each of its first byte's places is compared. (glibc's
    /// `memmem` sets up a search at every call: on the parse's text nodes it made the mix's render 3.5% dearer.)
    package static func contains(_ needle: StaticString, in utf8: some Collection<UInt8>) -> Bool {
        let count = needle.utf8CodeUnitCount
        guard count > 0 else { return true }
        return withBytes(utf8) { bytes in
            guard let base = bytes.baseAddress else { return false }
            var found = false
            forEach(needle.utf8Start.pointee, in: bytes) { position in
                found = position + count <= bytes.count && memcmp(base + position, needle.utf8Start, count) == 0
                return !found
            }
            return found
        }
    }

    /// The number of bytes up to and including the `count`th newline of `utf8`, or all of them when it has fewer.
    package static func offset(afterLines count: Int, in utf8: some Collection<UInt8>) -> Int {
        withBytes(utf8) { bytes in
            guard count > 0 else { return 0 }
            var seen = 0
            var end = bytes.count
            forEach(0x0A, in: bytes) { position in
                seen += 1
                if seen == count { end = position + 1 }
                return seen < count
            }
            return end
        }
    }
}
