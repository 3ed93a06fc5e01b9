import Foundation
import SystemSupport

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

    /// Reads and checks an image file: it must be a regular file (a FIFO or device is refused without being read),
    /// at most `maximumSize`, and PNG, JPEG, WebP or GIF.
    public static func load(path: String) throws(ImageInputError) -> ImageInput {
        let read: [UInt8]?
        do throws(RegularFileError) { read = try RegularFile.read(path, limit: maximumSize) } catch {
            if case .notRegular(_, .directory) = error { throw .directory(path) }
            throw .unreadable(error)
        }
        guard let bytes = read else { throw .tooLarge(path, limit: maximumSize) }
        guard let mime = mimeType(sniffing: bytes) else { throw .unsupported(path) }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return ImageInput(name: name, mimeType: mime, bytes: bytes)
    }
}

/// An image that cannot be attached.
public enum ImageInputError: Error, Equatable, CustomStringConvertible {
    /// Not found, a symlink loop, not a regular file, or unreadable: the reason names the path.
    case unreadable(RegularFileError)
    case directory(String)
    case tooLarge(String, limit: Int)
    case unsupported(String)

    public var description: String {
        switch self {
        case .unreadable(let reason): "\(reason); the image was not attached"
        case .directory(let path): "\(path) is a directory, not an image file"
        case .tooLarge(let path, let limit): "\(path) is larger than \(limit >> 20) MB; attach a smaller image"
        case .unsupported(let path): "\(path) is not a PNG, JPEG, WebP or GIF image"
        }
    }
}
