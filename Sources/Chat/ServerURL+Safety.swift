extension ServerURL {
    /// `text` with the password of every `scheme://user:password@host` in it replaced by `***`.
    ///
    /// Every message and listing that can show a server address passes through this, so a password given
    /// in `--server`, `LLMSTER_SERVER` or the configuration is never printed.
    public static func redactingPasswords(in text: String) -> String {
        var result = ""
        var rest = text[...]
        while let separator = rest.range(of: "://") {
            result += rest[..<separator.upperBound]
            rest = rest[separator.upperBound...]
            let authorityEnd = rest.firstIndex { "/?# \t\r\n\"'<>()".contains($0) } ?? rest.endIndex
            let authority = rest[..<authorityEnd]
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                result += authority[..<colon] + ":***" + authority[at...]
            } else {
                result += authority
            }
            rest = rest[authorityEnd...]
        }
        return result + rest
    }

    /// Whether `url` names no port, or a port from 1 to 65535.
    public static func hasValidPort(_ url: String) -> Bool {
        guard let separator = url.range(of: "://") else { return true }
        let afterScheme = url[separator.upperBound...]
        var host = afterScheme[..<(afterScheme.firstIndex { "/?#".contains($0) } ?? afterScheme.endIndex)]
        if let at = host.lastIndex(of: "@") { host = host[host.index(after: at)...] }
        let portText: Substring
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            let after = host[host.index(after: close)...]
            guard !after.isEmpty else { return true }
            guard after.hasPrefix(":") else { return false }
            portText = after.dropFirst()
        } else if let colon = host.lastIndex(of: ":") {
            portText = host[host.index(after: colon)...]
        } else {
            return true
        }
        guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isASCII), let port = Int(portText) else {
            return false
        }
        return (1...65_535).contains(port)
    }
}
