import Library

extension Conversation {
    /// What every face shows for a conversation without a title yet (and what a first message without words is titled).
    public static let untitled = "Untitled"

    /// The title as every face shows it: `untitled` while the conversation has none (or only blanks).
    public var displayTitle: String { Self.displayTitle(of: title) }

    /// The shown form of a stored `title` (e.g. a `ConversationCandidate`'s).
    public static func displayTitle(of title: String) -> String { title.allSatisfy(\.isWhitespace) ? untitled : title }
}
