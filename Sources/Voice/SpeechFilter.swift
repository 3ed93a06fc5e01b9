import Foundation

/// Decides what of a Markdown reply is read aloud.
///
/// Opaque ids (UUIDs, `resp_…`, long hex or base64-like tokens), hashes, emoji and media URLs are
/// skipped; other URLs become their host name; a code block becomes a short mention of its language;
/// Markdown markup is removed. Only the spoken text is filtered: the stored transcript keeps the original.
public enum SpeechFilter {
    /// The text to speak for `markdown`: one line per paragraph, heading, list item or code block.
    public static func speakableText(_ markdown: String) -> String {
        var spoken: [String] = []
        var fence: (marker: String, language: String)?
        for rawLine in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if let open = fence {
                if line.hasPrefix(open.marker), line.allSatisfy({ $0 == open.marker.first }) { fence = nil }
                continue
            }
            if let marker = fenceMarker(line) {
                let language =
                    line.dropFirst(marker.count).trimmingCharacters(in: .whitespaces)
                    .split(separator: " ").first.map(String.init) ?? ""
                fence = (marker, language)
                spoken.append(language.isEmpty ? "A code block." : "A code block in \(languageName(language)).")
                continue
            }
            if let text = speakableLine(line), !text.isEmpty { spoken.append(text) }
        }
        return spoken.joined(separator: "\n")
    }

    /// A fence's opening marker (three or more backticks or tildes).
    private static func fenceMarker(_ line: String) -> String? {
        for character in ["`", "~"] {
            let run = line.prefix { String($0) == character }
            if run.count >= 3 { return String(run) }
        }
        return nil
    }

    /// One line without block markup; nil for lines that say nothing (rules, table separators).
    private static func speakableLine(_ line: String) -> String? {
        var text = Substring(line)
        if text.isEmpty { return nil }
        let stripped = text.filter { !$0.isWhitespace }
        if stripped.count >= 3, let first = stripped.first, "-*_".contains(first), stripped.allSatisfy({ $0 == first })
        {
            return nil
        }
        if text.hasPrefix("|") {
            let cells = text.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                !$0.isEmpty
            }
            if cells.allSatisfy({ $0.allSatisfy { "-:".contains($0) } }) { return nil }
            text = Substring(cells.joined(separator: ", "))
        }
        var isHeading = false
        while text.hasPrefix(">") { text = text.dropFirst().drop { $0 == " " } }
        if text.hasPrefix("#") {
            let hashes = text.prefix { $0 == "#" }
            if hashes.count <= 6, text.dropFirst(hashes.count).first == " " || text.count == hashes.count {
                text = text.dropFirst(hashes.count).drop { $0 == " " }
                isHeading = true
            }
        }
        for bullet in ["- [ ] ", "- [x] ", "- ", "* ", "+ "] where text.hasPrefix(bullet) {
            text = text.dropFirst(bullet.count)
            break
        }
        var result = speakableWords(inline(String(text)))
        if isHeading, let last = result.last, !".!?:".contains(last) { result += "." }
        return result
    }

    /// Removes inline markup: images, links, emphasis, inline code marks, HTML tags and escapes.
    private static func inline(_ text: String) -> String {
        var result = text
        // Images: their alt text, when there is one.
        result = replace(#"!\[([^\]]*)\]\([^)]*\)"#, in: result, with: "$1")
        // Links: their text, unless the text is the URL itself (then the URL is filtered like any other).
        result = replace(#"\[([^\]]+)\]\(([^)\s]+)[^)]*\)"#, in: result, with: "$1")
        result = replace(#"<(https?://[^>\s]+)>"#, in: result, with: "$1")
        result = replace(#"</?[A-Za-z][^>]*>"#, in: result, with: "")
        result = replace(#"(\*\*|__|~~)"#, in: result, with: "")
        result = replace(#"(?<![\w*])[*_](?=\S)([^*_]+?)(?<=\S)[*_](?![\w*])"#, in: result, with: "$1")
        result = result.replacingOccurrences(of: "`", with: "")
        result = replace(#"\\([\\`*_{}\[\]()#+\-.!|>~])"#, in: result, with: "$1")
        return result
    }

    /// The words worth hearing: ids, hashes, emoji and media URLs skipped, URLs reduced to their host.
    private static func speakableWords(_ text: String) -> String {
        var words: [String] = []
        for word in text.split(whereSeparator: \.isWhitespace) {
            let (lead, core, trail) = splitPunctuation(String(word))
            if core.isEmpty {
                if !word.allSatisfy({ "()[]{}".contains($0) }) { words.append(String(word)) }
                continue
            }
            if let replacement = spokenForm(core) {
                words.append(lead + replacement + trail)
            } else if let end = trail.first(where: { ".!?".contains($0) }), let last = words.last?.last,
                !".!?".contains(last)
            {
                words[words.count - 1].append(end)
            }
        }
        return words.joined(separator: " ")
    }

    /// What a token is read as, or nil when it is skipped.
    private static func spokenForm(_ token: String) -> String? {
        let withoutEmoji = String(token.filter { !isEmoji($0) })
        if withoutEmoji.isEmpty { return nil }
        let token = withoutEmoji
        if let url = URL(string: token), let scheme = url.scheme?.lowercased() {
            if scheme == "data" { return nil }
            if ["http", "https", "ftp"].contains(scheme) {
                let pathExtension = url.pathExtension.lowercased()
                if mediaExtensions.contains(pathExtension) { return nil }
                guard var host = url.host, !host.isEmpty else { return nil }
                if host.hasPrefix("www.") { host.removeFirst(4) }
                return host
            }
        }
        if isOpaqueIdentifier(token) { return nil }
        return token
    }

    /// Splits leading and trailing punctuation off a word, so `(resp_1a2b3c4d).` is judged by its core.
    private static func splitPunctuation(_ word: String) -> (String, String, String) {
        let edges = Set("()[]{}\"'«».,;:!?")
        let lead = word.prefix { edges.contains($0) }
        let rest = word.dropFirst(lead.count)
        let trail = String(rest.reversed().prefix { edges.contains($0) }.reversed())
        let core = rest.dropLast(trail.count)
        return (String(lead), String(core), trail)
    }

    /// Whether `token` is an id or hash nobody wants to hear.
    static func isOpaqueIdentifier(_ token: String) -> Bool {
        let body = token.split(separator: ":").last.map(String.init) ?? token
        if token.lowercased().hasPrefix("sha") || token.lowercased().hasPrefix("md5:") {
            if body.count >= 16, body.allSatisfy(\.isHexDigit) { return true }
        }
        if UUID(uuidString: token) != nil { return true }
        if matches(#"^[A-Za-z]{2,12}_[A-Za-z0-9]{6,}$"#, token), token.contains(where: \.isNumber) { return true }
        if token.count >= 12, token.allSatisfy(\.isHexDigit), token.contains(where: \.isNumber),
            token.contains(where: \.isLetter)
        {
            return true
        }
        if token.count >= 20, matches(#"^[A-Za-z0-9+/_=-]+$"#, token), token.contains(where: \.isNumber),
            token.contains(where: \.isLetter)
        {
            return true
        }
        return false
    }

    /// Whether a character is shown as an emoji (pictographs, flags, keycaps, emoji-style symbols).
    private static func isEmoji(_ character: Character) -> Bool {
        let scalars = character.unicodeScalars
        if scalars.contains(where: { $0.properties.isEmojiPresentation }) { return true }
        return scalars.count > 1 && scalars.contains { $0.value == 0xFE0F || $0.value == 0x20E3 }
    }

    private static let mediaExtensions: Set<String> = [
        "png", "jpg", "jpeg", "gif", "webp", "bmp", "svg", "tif", "tiff", "ico", "heic", "avif",
        "mp3", "wav", "ogg", "oga", "flac", "m4a", "aac", "opus",
        "mp4", "m4v", "webm", "mov", "mkv", "avi"
    ]

    /// A code block's language as it is said: `swift` → Swift, `cpp` → C++.
    private static func languageName(_ tag: String) -> String {
        let names = [
            "cpp": "C++", "c++": "C++", "cs": "C#", "csharp": "C#", "js": "JavaScript", "javascript": "JavaScript",
            "ts": "TypeScript", "typescript": "TypeScript", "py": "Python", "sh": "shell", "bash": "shell",
            "zsh": "shell", "json": "JSON", "yaml": "YAML", "yml": "YAML", "html": "HTML", "css": "CSS",
            "sql": "SQL", "objc": "Objective-C", "rb": "Ruby", "rs": "Rust", "kt": "Kotlin", "md": "Markdown",
            "xml": "XML", "toml": "TOML", "c": "C", "go": "Go"
        ]
        if let name = names[tag.lowercased()] { return name }
        return tag.prefix(1).uppercased() + tag.dropFirst()
    }

    private static func replace(_ pattern: String, in text: String, with template: String) -> String {
        text.replacingOccurrences(of: pattern, with: template, options: .regularExpression)
    }

    private static func matches(_ pattern: String, _ text: String) -> Bool {
        text.range(of: pattern, options: .regularExpression) != nil
    }
}
