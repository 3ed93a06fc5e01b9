import Foundation

/// Counts describing a library, for previews before a restore or import.
public struct LibraryStatistics: Equatable, Sendable, Codable {
    public var folders: Int
    public var conversations: Int
    public var messages: Int
    public var attachments: Int
    /// The total size of attachment contents, in bytes.
    public var attachmentBytes: Int
    public var pinned: Int
    /// Conversations with a non-empty draft.
    public var drafts: Int
    /// The earliest conversation creation.
    public var oldest: Date?
    /// The latest conversation activity.
    public var newest: Date?

    public init(
        folders: Int, conversations: Int, messages: Int, attachments: Int, attachmentBytes: Int,
        pinned: Int, drafts: Int, oldest: Date?, newest: Date?
    ) {
        self.folders = folders
        self.conversations = conversations
        self.messages = messages
        self.attachments = attachments
        self.attachmentBytes = attachmentBytes
        self.pinned = pinned
        self.drafts = drafts
        self.oldest = oldest
        self.newest = newest
    }
}
