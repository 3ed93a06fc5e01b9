/// A file attached to a message, stored inside the library.
public struct Attachment: Equatable, Hashable, Sendable, Codable {
    public var id: String
    public var messageId: String
    public var name: String
    public var mimeType: String
    public var bytes: [UInt8]
    /// Lowercase hex SHA-256 of `bytes`.
    public var sha256: String

    public init(id: String, messageId: String, name: String, mimeType: String, bytes: [UInt8], sha256: String) {
        self.id = id
        self.messageId = messageId
        self.name = name
        self.mimeType = mimeType
        self.bytes = bytes
        self.sha256 = sha256
    }
}
