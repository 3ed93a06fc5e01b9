/// Which URLs may become OSC 8 hyperlinks, and how a link's destination is summarised next to its text.
enum LinkPolicy {
    /// Longest URL turned into a hyperlink.
    static let maximumLength = 2048

    /// Whether `url` is http, https or mailto, made only of printable ASCII, and not too long.
    static func isLinkable(_ url: String) -> Bool {
        guard url.utf8.count <= maximumLength, url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return false }
        let lowered = url.lowercased()
        return lowered.hasPrefix("http://") || lowered.hasPrefix("https://") || lowered.hasPrefix("mailto:")
    }

    /// The host of an http(s) URL, the address of a mailto URL, or nil.
    static func host(of url: String) -> String? {
        let lowered = url.lowercased()
        if lowered.hasPrefix("mailto:") { return String(url.dropFirst(7)) }
        guard let schemeEnd = url.firstRange(of: "://") else { return nil }
        var authority = url[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        return authority.isEmpty ? nil : String(authority)
    }

    /// Whether a link whose text is `text` already shows its destination `url`.
    static func textShowsURL(_ text: String, _ url: String) -> Bool {
        text == url || "mailto:" + text == url || "http://" + text == url || "https://" + text == url
    }
}
