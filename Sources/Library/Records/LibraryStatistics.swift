import Foundation

/// Counts describing a library, for previews before a restore or import.
public struct LibraryStatistics: Equatable, Sendable, Codable {
    /// Number of folders.
    public var folders: Int
    /// Number of conversations.
    public var conversations: Int
    /// Number of messages.
    public var messages: Int
    /// Number of attachments.
    public var attachments: Int
    /// The total size of attachment contents, in bytes.
    public var attachmentBytes: Int
    /// Number of pinned conversations.
    public var pinned: Int
    /// Conversations with a non-empty draft.
    public var drafts: Int
    /// The earliest conversation creation.
    public var oldest: Date?
    /// The latest conversation activity.
    public var newest: Date?

    /// Creates a value from its fields.
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
