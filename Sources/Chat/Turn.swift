/// One user turn: text and optional images.
public struct Turn: Sendable, Equatable {
    public var text: String
    public var images: [ImageInput]

    /// Creates a turn.
    public init(text: String, images: [ImageInput] = []) {
        self.text = text
        self.images = images
    }
}

/// An image to send with a turn; its type was already checked by its bytes.
public struct ImageInput: Sendable, Equatable {
    public var name: String
    public var mimeType: String
    public var bytes: [UInt8]

    /// Creates an image input.
    public init(name: String, mimeType: String, bytes: [UInt8]) {
        self.name = name
        self.mimeType = mimeType
        self.bytes = bytes
    }
}
