/// Damerau–Levenshtein distance (optimal string alignment), for "did you mean" suggestions on unknown
/// commands, options, slash commands, model keys and conversation titles.
public enum EditDistance {
    /// The number of single-character edits (insertions, deletions, substitutions and swaps of two adjacent
    /// characters, each weighing 1) that turn `a` into `b`.
    public static func between(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }

    /// The candidate closest to `word`, if within `maximum` edits; a candidate `word` begins counts as closest,
    /// and among equally close ones the earlier wins.
    public static func nearest(to word: String, in candidates: [String], maximum: Int) -> String? {
        if let prefixed = candidates.first(where: { $0.hasPrefix(word) && !word.isEmpty }) { return prefixed }
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = between(word, candidate)
            if distance <= maximum, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.candidate
    }
}
