/// A file attached to a message, stored inside the library.
public struct Attachment: Equatable, Hashable, Sendable, Codable {
    /// Random lowercase hex.
    public var id: String
    /// The message the file is attached to.
    public var messageId: String
    /// The file name.
    public var name: String
    /// The media type, e.g. "image/png".
    public var mimeType: String
    /// The file's contents.
    public var bytes: [UInt8]
    /// Lowercase hex SHA-256 of `bytes`.
    public var sha256: String

    /// Creates a value from its fields.
    public init(id: String, messageId: String, name: String, mimeType: String, bytes: [UInt8], sha256: String) {
        self.id = id
        self.messageId = messageId
        self.name = name
        self.mimeType = mimeType
        self.bytes = bytes
        self.sha256 = sha256
    }
}
