import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One line of a `.gitignore`, matched as git does for the common forms: `name`, `*.log`, `dir/`, `/anchored`,
/// `a/b`, `**/x`, `x/**` and `!negated`; the last matching line decides.
struct GitignoreRule: Sendable {
    /// The directory holding the `.gitignore`, which anchored patterns are relative to.
    let base: String
    let pattern: String
    let negated: Bool
    let directoryOnly: Bool
    /// Matched against the path below `base` rather than the last component.
    let anchored: Bool

    /// The rules of `directory/.gitignore`; none when there is none.
    static func load(directory: String) -> [GitignoreRule] {
        guard let data = FileManager.default.contents(atPath: directory + "/.gitignore") else { return [] }
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { line in
            var text = String(line)
            while text.hasSuffix(" ") && !text.hasSuffix("\\ ") { text.removeLast() }
            guard !text.isEmpty, !text.hasPrefix("#") else { return nil }
            let negated = text.hasPrefix("!")
            if negated { text.removeFirst() }
            let directoryOnly = text.hasSuffix("/")
            if directoryOnly { text.removeLast() }
            let anchored = text.contains("/")
            if text.hasPrefix("/") { text.removeFirst() }
            guard !text.isEmpty else { return nil }
            return GitignoreRule(
                base: directory, pattern: text, negated: negated, directoryOnly: directoryOnly, anchored: anchored)
        }
    }

    /// Whether the last of `rules` that matches `path` ignores it.
    static func ignores(_ rules: [GitignoreRule], path: String, isDirectory: Bool) -> Bool {
        for rule in rules.reversed() where rule.matches(path, isDirectory: isDirectory) { return !rule.negated }
        return false
    }

    private func matches(_ path: String, isDirectory: Bool) -> Bool {
        guard !directoryOnly || isDirectory, path.hasPrefix(base + "/") else { return false }
        let relative = String(path.dropFirst(base.count + 1))
        if !anchored {
            return fnmatch(pattern, relative.split(separator: "/").last.map(String.init) ?? relative, 0) == 0
        }
        if pattern.hasPrefix("**/") {
            let rest = String(pattern.dropFirst(3))
            let components = relative.split(separator: "/")
            return components.indices.contains {
                fnmatch(rest, components[$0...].joined(separator: "/"), FNM_PATHNAME) == 0
            }
        }
        if pattern.hasSuffix("/**") { return relative.hasPrefix(String(pattern.dropLast(2))) }
        return fnmatch(pattern, relative, pattern.contains("**") ? 0 : FNM_PATHNAME) == 0
    }
}
