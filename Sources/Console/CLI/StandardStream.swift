import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Unbuffered writes to standard output or standard error, safe from any thread.
public struct StandardStream: Sendable, TextOutputStream {
    public let fd: Int32

    public static let output = StandardStream(fd: 1)
    public static let error = StandardStream(fd: 2)

    /// Whether the stream is a terminal.
    public var isTerminal: Bool { isatty(fd) == 1 }

    public mutating func write(_ string: String) { send(string) }

    /// Writes `string` completely (retrying short writes); errors such as a closed pipe are ignored.
    public func send(_ string: String) {
        var bytes = Array(string.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = posixWrite(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }

    /// Writes `string` and a newline.
    public func line(_ string: String = "") { send(string + "\n") }
}

private func posixWrite(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(fd, buffer, count)
    #else
    Darwin.write(fd, buffer, count)
    #endif
}
