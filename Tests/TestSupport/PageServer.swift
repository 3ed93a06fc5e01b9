import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A tiny HTTP/1.1 server on a free loopback port serving fixed pages, for fetching web pages in tests (HTML,
/// redirects, oversized bodies, a page that never finishes). Each connection gets one response, then is closed.
public final class PageServer: Sendable {
    /// What a path answers.
    public enum Page: Sendable {
        /// A status, headers and body.
        case page(status: Int, headers: [String: String], body: [UInt8])
        /// Headers and the start of a body, then silence until the server stops (an idle timeout).
        case stall(contentType: String)

        /// A 200 page of `type`.
        public static func ok(_ body: String, type: String = "text/html; charset=utf-8") -> Page {
            .page(status: 200, headers: ["Content-Type": type], body: Array(body.utf8))
        }

        /// A redirect to `location`.
        public static func redirect(_ location: String, status: Int = 302) -> Page {
            .page(status: status, headers: ["Location": location], body: [])
        }
    }

    private let listener: Int32
    private let pages: [String: Page]
    private let stopped = Mutex(false)
    /// `http://127.0.0.1:PORT`.
    public let url: String

    /// Starts serving `pages` by path; anything else is a 404.
    public init(_ pages: [String: Page]) throws {
        self.pages = pages
        // Close-on-exec: a child started meanwhile by another test must not keep the port listening.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EIO) }
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 16) == 0 else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        url = "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
        Thread.detachNewThread { [self] in
            while true {
                let connection = accept(listener, nil, nil)
                if connection >= 0 { _ = fcntl(connection, F_SETFD, FD_CLOEXEC) }
                if connection < 0 {
                    if errno == EINTR { continue }
                    // Closed here, once no accept can use it: closed by `stop` while this thread was between two
                    // accepts, its number could be reused by another test's socket, whose connections this took.
                    close(listener)
                    return
                }
                Thread.detachNewThread { self.answer(connection) }
            }
        }
    }

    deinit { stop() }

    /// Stops accepting and ends stalled responses.
    public func stop() {
        let already = stopped.withLock { stopped in
            defer { stopped = true }
            return stopped
        }
        guard !already else { return }
        // The accepting thread's accept fails and it closes the listener.
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func answer(_ connection: Int32) {
        defer { close(connection) }
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.containsHeaderEnd {
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            request += buffer[0..<count]
        }
        let line = String(decoding: request.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self).split(separator: " ")
        let path = line.count > 1 ? String(line[1]) : "/"
        switch pages[path] ?? .page(status: 404, headers: ["Content-Type": "text/plain"], body: Array("not found".utf8))
        {
        case .page(let status, let headers, let body):
            var head =
                "HTTP/1.1 \(status) \(status == 200 ? "OK" : "Status")\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            send(connection, Array((head + "\r\n").utf8) + body)
        case .stall(let type):
            send(
                connection,
                Array(
                    "HTTP/1.1 200 OK\r\nContent-Type: \(type)\r\nContent-Length: 100000\r\nConnection: close\r\n\r\n<p>start"
                        .utf8))
            // Holds the connection open without sending until the client gives up (its idle timeout) and closes it.
            _ = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
        }
    }

    private func send(_ connection: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { return }
            offset += sent
        }
    }
}

extension [UInt8] {
    fileprivate var containsHeaderEnd: Bool {
        count >= 4
            && indices.dropLast(3).contains {
                self[$0] == 13 && self[$0 + 1] == 10 && self[$0 + 2] == 13 && self[$0 + 3] == 10
            }
    }
}
