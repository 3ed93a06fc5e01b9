/// Where a forked conversation came from, as recorded when it was made.
public struct ForkOrigin: Equatable, Sendable {
    /// The conversation it was forked from (which may since have been deleted).
    public var sourceId: String
    /// That conversation's title at the time.
    public var sourceTitle: String
    /// The reply (1-based, counting the replies on the source's current branch) it continues from.
    public var replyNumber: Int

    /// Creates a value from its fields.
    public init(sourceId: String, sourceTitle: String, replyNumber: Int) {
        self.sourceId = sourceId
        self.sourceTitle = sourceTitle
        self.replyNumber = replyNumber
    }
}
