/// One user turn: text, optional images and optional context items (files, pages, command output).
public struct Turn: Sendable, Equatable {
    public var text: String
    public var images: [ImageInput]
    /// Sent before the text, each as a named block; saved with the message as attachments.
    public var context: [ContextItem]

    /// Creates a turn.
    public init(text: String, images: [ImageInput] = [], context: [ContextItem] = []) {
        self.text = text
        self.images = images
        self.context = context
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
