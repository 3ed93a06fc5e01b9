internal import CCurl
import Foundation

/// One request's life: the curl thread reports the head and body chunks here, and any task may cancel it.
///
/// Shared between the curl thread and Swift tasks; every mutable field
/// touched from more than one thread is guarded by `lock`.
final class CurlTransfer: @unchecked Sendable {
    let request: HTTPRequest
    private let lock = NSLock()
    private var cancelled = false
    private var multi: UnsafeMutableRawPointer?
    private var head: CheckedContinuation<HTTPResponse, any Error>?
    private var pendingBody: AsyncThrowingStream<[UInt8], any Error>?
    private let body: AsyncThrowingStream<[UInt8], any Error>.Continuation
    // Touched only by the curl thread.
    private var status = 0
    private var headerFields: [String: String] = [:]

    init(request: HTTPRequest) {
        self.request = request
        let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        pendingBody = stream
        body = continuation
        continuation.onTermination = { [weak self] _ in self?.cancel() }
    }

    /// Whether the transfer should stop at the next callback.
    var isCancelled: Bool { lock.withLock { cancelled } }

    /// Asks the curl thread to abort the transfer, waking it if it waits for the network.
    func cancel() {
        lock.withLock {
            cancelled = true
            if let multi { _ = curl_multi_wakeup(multi) }
        }
    }

    /// Lets ``cancel()`` wake the curl thread's wait on `multi` until ``detach()``.
    func attach(_ multi: UnsafeMutableRawPointer) {
        lock.withLock { self.multi = multi }
    }

    /// Forgets the multi handle before it is freed.
    func detach() {
        lock.withLock { multi = nil }
    }

    /// Starts the curl thread; `head` resumes with the response or the error that prevented it.
    func start(reportingHeadTo head: CheckedContinuation<HTTPResponse, any Error>) {
        lock.withLock { self.head = head }
        let thread = Thread { [self] in perform() }
        thread.name = "llmster-curl"
        thread.start()
    }

    private func perform() {
        let result: HTTPError?
        do {
            let easy = try CurlEasy(request: request, transfer: self)
            result = easy.perform()
        } catch {
            result = error
        }
        if let result {
            let failure = isCancelled ? HTTPError.cancelled : result
            takeHead()?.resume(throwing: failure)
            body.finish(throwing: failure)
        } else {
            deliverHead()
            body.finish()
        }
    }

    /// Handles one header line (with its line end); returns false to abort.
    func receiveHeader(_ line: UnsafeRawBufferPointer) -> Bool {
        if isCancelled { return false }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("HTTP/") {
            let fields = text.split(separator: " ", maxSplits: 2)
            status = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
            headerFields = [:]
        } else if text.isEmpty {
            if status >= 200 { deliverHead() }
        } else if let colon = text.firstIndex(of: ":") {
            let name = text[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if let previous = headerFields[name] {
                headerFields[name] = previous + ", " + value
            } else {
                headerFields[name] = value
            }
        }
        return true
    }

    /// Passes one body chunk on; returns false to abort.
    func receiveBody(_ chunk: UnsafeRawBufferPointer) -> Bool {
        if isCancelled { return false }
        deliverHead()
        body.yield(Array(chunk))
        return true
    }

    /// Records the status when no status line was seen (e.g. HTTP/0.9).
    func noteStatus(_ code: Int) {
        if status == 0 { status = code }
    }

    private func takeHead() -> CheckedContinuation<HTTPResponse, any Error>? {
        lock.withLock {
            defer { head = nil }
            return head
        }
    }

    private func deliverHead() {
        let (head, stream) = lock.withLock {
            defer { self.head = nil; pendingBody = nil }
            return (self.head, pendingBody)
        }
        guard let head, let stream else { return }
        head.resume(returning: HTTPResponse(status: status, headers: headerFields, body: stream))
    }
}
