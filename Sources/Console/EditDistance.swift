/// Levenshtein distance, for "did you mean" suggestions on unknown commands and options.
public enum EditDistance {
    /// The number of single-character edits that turn `a` into `b`.
    public static func between(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    /// The candidate closest to `word`, if within `maximum` edits (a prefix match counts as close).
    public static func nearest(to word: String, in candidates: [String], maximum: Int) -> String? {
        if let prefixed = candidates.first(where: { $0.hasPrefix(word) && !word.isEmpty }) { return prefixed }
        let scored = candidates.map { ($0, between(word, $0)) }.filter { $0.1 <= maximum }
        return scored.min { $0.1 < $1.1 }?.0
    }
}
