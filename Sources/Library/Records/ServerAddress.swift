/// How the library keeps a server's URL: without the `user:password@` of its authority, so no password given in a
/// server URL is stored, exported or backed up (it stays in the configuration or credentials where the user put it).
public enum ServerAddress {
    /// `url` without its userinfo: `http://ann:pw@host:1234/v1` → `http://host:1234/v1`; any other text unchanged.
    ///
    /// The authority ends at the first `/`, `?` or `#` after `://`; everything up to its last `@` goes (the same
    /// cut as migration 13 makes in SQL).
    public static func withoutUserinfo(_ url: String) -> String {
        guard let separator = url.range(of: "://") else { return url }
        let rest = url[separator.upperBound...]
        let authorityEnd = rest.firstIndex { "/?#".contains($0) } ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return url }
        return String(url[..<separator.upperBound] + rest[rest.index(after: at)...])
    }
}
