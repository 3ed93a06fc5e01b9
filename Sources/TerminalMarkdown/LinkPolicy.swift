/// Which URLs may become OSC 8 hyperlinks, and how a link's destination is summarised next to its text.
///
/// Every link of a reply passes through here while it streams, so the checks read the URL's bytes in place
/// rather than building lowercased or prefixed copies of it.
enum LinkPolicy {
    /// Longest URL turned into a hyperlink.
    static let maximumLength = 2048

    /// Whether `url` is http, https or mailto, made only of printable ASCII, and not too long.
    static func isLinkable(_ url: String) -> Bool {
        guard url.utf8.count <= maximumLength, url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return false }
        return ["http://", "https://", "mailto:"].contains { hasPrefix(url.utf8, $0) }
    }

    /// The host of an http(s) URL, the address of a mailto URL, or nil.
    static func host(of url: String) -> String? {
        let utf8 = url.utf8
        if hasPrefix(utf8, "mailto:") { return String(url.dropFirst(7)) }
        guard let schemeEnd = firstRange(of: Array("://".utf8), in: utf8) else { return nil }
        var authority = utf8[schemeEnd...].prefix {
            $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#")
        }
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[authority.index(after: at)...] }
        return authority.isEmpty ? nil : String(Substring(authority))
    }

    /// Whether a link whose text is `text` already shows its destination `url`: the same, or the same after
    /// `mailto:`, `http://` or `https://`.
    static func textShowsURL(_ text: String, _ url: String) -> Bool {
        let urlBytes = url.utf8
        for prefix in ["", "mailto:", "http://", "https://"] where urlBytes.count == prefix.utf8.count + text.utf8.count
        {
            if urlBytes.starts(with: prefix.utf8) && urlBytes.dropFirst(prefix.utf8.count).elementsEqual(text.utf8) {
                return true
            }
        }
        return false
    }

    /// Whether `bytes` start with ASCII `prefix`, ignoring the case of letters.
    private static func hasPrefix(_ bytes: String.UTF8View, _ prefix: String) -> Bool {
        guard bytes.count >= prefix.utf8.count else { return false }
        return zip(bytes, prefix.utf8).allSatisfy { byte, expected in
            byte == expected || ((0x41...0x5A).contains(byte) && byte + 0x20 == expected)
        }
    }

    /// Where `needle` first ends in `bytes`, or nil.
    private static func firstRange(of needle: [UInt8], in bytes: String.UTF8View) -> String.UTF8View.Index? {
        var index = bytes.startIndex
        while index != bytes.endIndex {
            if bytes[index...].starts(with: needle) { return bytes.index(index, offsetBy: needle.count) }
            index = bytes.index(after: index)
        }
        return nil
    }
}
