import Foundation
import Glibc
import Simulator

/// A response read off a raw loopback socket until the server closed it.
struct LoopbackResponse {
    var status: Int
    var headers: [String: String]
    /// The body after undoing chunked transfer encoding.
    var body: [UInt8]
    /// True when a chunked body ended with its terminating zero-size chunk (always true otherwise).
    var complete: Bool

    var text: String { String(decoding: body, as: UTF8.self) }

    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
    }

    /// `error.message` of an error object body, or `error` when it is a string.
    var errorMessage: String? {
        if let inner = json["error"] as? [String: Any] { return inner["message"] as? String }
        return json["error"] as? String
    }

    var error: [String: Any] {
        json["error"] as? [String: Any] ?? [:]
    }

    /// The SSE events of a streamed body, comments skipped.
    var events: [SSEEvent] {
        text.components(separatedBy: "\n\n").compactMap(SSEEvent.init(block:))
    }

    /// The names of the streamed events in order.
    var eventNames: [String] {
        events.map(\.name)
    }
}

/// One server-sent event.
struct SSEEvent {
    var name: String
    var data: String

    init?(block: String) {
        var name: String?
        var data: [String] = []
        for line in block.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
            if line.hasPrefix("data: ") { data.append(String(line.dropFirst(6))) }
        }
        guard let name else { return nil }
        self.name = name
        self.data = data.joined(separator: "\n")
    }

    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:]
    }
}

/// A raw loopback connection that sent one request and reads the answer as it arrives.
final class LoopbackConnection {
    private let fd: Int32
    /// Every byte received so far.
    private(set) var received: [UInt8] = []

    /// Connects to `simulator` and sends the request.
    init(_ simulator: Simulator, _ method: String, _ path: String, body: String? = nil, headers: [String: String] = [:])
        throws
    {
        let port = UInt16(simulator.baseURL.split(separator: ":").last!)!
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw LoopbackError.connect }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let bodyBytes = Array((body ?? "").utf8)
        if body != nil { head += "Content-Type: application/json\r\nContent-Length: \(bodyBytes.count)\r\n" }
        head += "\r\n"
        let out = Array(head.utf8) + bodyBytes
        var offset = 0
        while offset < out.count {
            let sent = out[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            guard sent > 0 else { throw LoopbackError.send }
            offset += sent
        }
    }

    deinit {
        close(fd)
    }

    /// Reads until the received text contains `marker`; false when the server closed first.
    func read(until marker: String) -> Bool {
        while !String(decoding: received, as: UTF8.self).contains(marker) {
            guard receiveSome() else { return false }
        }
        return true
    }

    /// Reads until the server closes the connection and parses the whole response.
    func response() throws -> LoopbackResponse {
        while receiveSome() {}
        return try parseResponse(received)
    }

    private func receiveSome() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count > 0 else { return false }
        received += buffer[0..<count]
        return true
    }
}

/// Sends one HTTP/1.1 request over a fresh loopback socket and reads the whole response.
func request(
    _ simulator: Simulator, _ method: String, _ path: String, body: String? = nil, headers: [String: String] = [:]
) throws -> LoopbackResponse {
    try LoopbackConnection(simulator, method, path, body: body, headers: headers).response()
}

/// Sends a JSON body built from a dictionary.
func post(_ simulator: Simulator, _ path: String, _ json: [String: Any], headers: [String: String] = [:]) throws
    -> LoopbackResponse
{
    let data = try JSONSerialization.data(withJSONObject: json)
    return try request(simulator, "POST", path, body: String(decoding: data, as: UTF8.self), headers: headers)
}

/// Sends a chat request.
func chat(_ simulator: Simulator, _ json: [String: Any], headers: [String: String] = [:]) throws -> LoopbackResponse {
    try post(simulator, "/api/v1/chat", json, headers: headers)
}

enum LoopbackError: Error {
    case connect, send, malformed
}

private func parseResponse(_ raw: [UInt8]) throws -> LoopbackResponse {
    guard
        let end = raw.indices.dropLast(3).first(where: {
            raw[$0] == 13 && raw[$0 + 1] == 10 && raw[$0 + 2] == 13 && raw[$0 + 3] == 10
        })
    else {
        throw LoopbackError.malformed
    }
    let lines = String(decoding: raw[..<end], as: UTF8.self).components(separatedBy: "\r\n")
    let statusParts = lines[0].split(separator: " ")
    guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw LoopbackError.malformed }
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    let payload = Array(raw[(end + 4)...])
    guard headers["transfer-encoding"] == "chunked" else {
        return LoopbackResponse(status: status, headers: headers, body: payload, complete: true)
    }
    var body: [UInt8] = []
    var index = 0
    while let lineEnd = payload[index...].firstIndex(of: 13), lineEnd + 1 < payload.count {
        let size = Int(String(decoding: payload[index..<lineEnd], as: UTF8.self), radix: 16) ?? -1
        guard size >= 0 else { throw LoopbackError.malformed }
        if size == 0 { return LoopbackResponse(status: status, headers: headers, body: body, complete: true) }
        let start = lineEnd + 2
        guard start + size + 2 <= payload.count else { break }
        body += payload[start..<(start + size)]
        index = start + size + 2
    }
    return LoopbackResponse(status: status, headers: headers, body: body, complete: false)
}

/// A started simulator for one test; stopped when the test's scope ends.
@discardableResult
func withSimulator<T>(_ options: SimulatorOptions = SimulatorOptions(), _ body: (Simulator) throws -> T) throws -> T {
    let simulator = Simulator(options: options)
    try simulator.start()
    defer { simulator.stop() }
    return try body(simulator)
}
