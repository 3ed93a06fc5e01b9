/// How much of a reply's text and reasoning (UTF-8 bytes, each ending on a character boundary) the library
/// already holds, so a save writes only what follows.
public struct SavedLength: Equatable, Sendable {
    public var text: Int
    public var reasoning: Int

    /// Creates a value from its fields; nothing saved by default.
    public init(text: Int = 0, reasoning: Int = 0) {
        self.text = text
        self.reasoning = reasoning
    }
}
