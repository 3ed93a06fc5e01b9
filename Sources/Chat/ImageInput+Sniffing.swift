import Foundation

extension ImageInput {
    /// The largest image llmster sends, in bytes.
    public static let maximumSize = 20 << 20

    /// The MIME type the bytes' magic number shows (PNG, JPEG, WebP, GIF), or nil.
    public static func mimeType(sniffing bytes: [UInt8]) -> String? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<offset + prefix.count]) == prefix
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return "image/gif" }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return "image/webp" }
        return nil
    }

    /// Reads and checks an image file: it must exist, be at most `maximumSize` and be PNG, JPEG, WebP or GIF.
    public static func load(path: String) throws(ImageInputError) -> ImageInput {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue { throw .directory(path) }
        guard let handle = FileHandleReader(path: path) else { throw .unreadable(path) }
        guard let bytes = handle.read(limit: maximumSize) else { throw .tooLarge(path, limit: maximumSize) }
        guard let mime = mimeType(sniffing: bytes) else { throw .unsupported(path) }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return ImageInput(name: name, mimeType: mime, bytes: bytes)
    }
}

/// An image that cannot be attached.
public enum ImageInputError: Error, Equatable, CustomStringConvertible {
    case unreadable(String)
    case directory(String)
    case tooLarge(String, limit: Int)
    case unsupported(String)

    public var description: String {
        switch self {
        case .unreadable(let path): "cannot read the image \(path)"
        case .directory(let path): "\(path) is a directory, not an image file"
        case .tooLarge(let path, let limit): "\(path) is larger than \(limit >> 20) MB; attach a smaller image"
        case .unsupported(let path): "\(path) is not a PNG, JPEG, WebP or GIF image"
        }
    }
}
