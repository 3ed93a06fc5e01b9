import Foundation
import Glibc

/// A parsed HTTP/1.1 request.
struct HTTPRequest {
    /// The request method, e.g. `POST`.
    var method: String
    /// The target without its query string.
    var path: String
    /// Header values by lowercased name.
    var headers: [String: String]
    /// The `Content-Length` body.
    var body: [UInt8]

    /// The body as text (lossy UTF-8).
    var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// Why a request could not be read; `status` is what to answer, nil when the peer went away.
    struct Failure: Error {
        /// The status to answer with; nil when the peer went away.
        var status: Int?
        /// What went wrong, for the error body.
        var message: String
    }

    /// Larger request heads are refused with 431.
    static let maxHeaderBytes = 64 * 1024
    /// Larger bodies are refused with 413 (images arrive base64-encoded, so this is generous).
    static let maxBodyBytes = 64 * 1024 * 1024

    /// Reads one request from a connected socket, answering `Expect: 100-continue` on the way.
    static func read(from fd: Int32) throws(Failure) -> HTTPRequest {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var headerEnd: Int?
        while headerEnd == nil {
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else {
                throw Failure(status: nil, message: "connection closed before the request was complete")
            }
            buffer += chunk[0..<count]
            headerEnd = endOfHeaders(buffer)
            if headerEnd == nil, buffer.count > maxHeaderBytes {
                throw Failure(status: 431, message: "Request headers are too large")
            }
        }
        let end = headerEnd!
        let head = String(decoding: buffer[0..<end], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3 else { throw Failure(status: 400, message: "Malformed request line") }
        var headers: [String: String] = [:]
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else {
                throw Failure(status: 400, message: "Malformed header line")
            }
            let name = line[..<colon].lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        if headers["transfer-encoding"] != nil {
            throw Failure(status: 411, message: "Chunked request bodies are not supported; send Content-Length")
        }
        let length: Int
        if let value = headers["content-length"] {
            guard let parsed = Int(value), parsed >= 0 else {
                throw Failure(status: 400, message: "Bad Content-Length")
            }
            length = parsed
        } else {
            length = 0
        }
        guard length <= maxBodyBytes else { throw Failure(status: 413, message: "Request body is too large") }
        if length > 0, headers["expect"]?.lowercased() == "100-continue" {
            guard ResponseWriter.sendAll(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else {
                throw Failure(status: nil, message: "connection closed")
            }
        }
        var body = Array(buffer[(end + 4)...])
        while body.count < length {
            let count = recv(fd, &chunk, min(chunk.count, length - body.count), 0)
            guard count > 0 else {
                throw Failure(status: nil, message: "connection closed before the body was complete")
            }
            body += chunk[0..<count]
        }
        let target = String(requestLine[1])
        let path =
            target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
            ?? target
        return HTTPRequest(
            method: String(requestLine[0]), path: path, headers: headers, body: Array(body.prefix(length)))
    }

    private static func endOfHeaders(_ buffer: [UInt8]) -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }
}
