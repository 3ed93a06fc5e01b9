/// The word being completed and the line before it.
struct CompletionRequest: Sendable, Equatable {
    /// The line up to the start of the word.
    var before: String
    /// The partial word.
    var word: String
    /// The quote the word is inside (`"` or `'`), when it started with one.
    var quote: Character? = nil

    /// The words before the one being completed.
    var previousWords: [String] { before.split(separator: " ").map(String.init) }

    /// Whether the word is a file name (`/attach`, `/save`, `/import` …), completed by readline's own filename completion.
    var wantsPaths: Bool {
        guard let first = previousWords.first else { return false }
        return ReplCommands.all.first { "/" + $0.name == first }?.argument == .path
    }

    /// The longest prefix every match shares.
    static func commonPrefix(of matches: [String]) -> String {
        guard var prefix = matches.first else { return "" }
        for match in matches.dropFirst() {
            while !match.hasPrefix(prefix) { prefix.removeLast() }
        }
        return prefix
    }
}
