internal import CCurl
import Foundation

/// One request's life: the curl thread reports the head and body chunks here, the consumer pulls them, and any task may cancel it.
///
/// Thread contract (as in corelibs-foundation's `_EasyHandle`): libcurl
/// handles are not thread-safe, so every `curl_easy_*` and `curl_multi_*`
/// call except `curl_multi_wakeup` runs on the one curl thread that
/// ``start(reportingHeadTo:)`` creates. Other threads only change the
/// fields below under `lock` and wake that thread with `curl_multi_wakeup`,
/// the one libcurl call documented as callable from any thread.
///
/// Backpressure: the body is held in a buffer of at most ``bufferLimit``
/// bytes. When a chunk does not fit, the write callback returns
/// `CURL_WRITEFUNC_PAUSE`; libcurl then keeps that chunk, stops reading the
/// socket (so TCP pushes back on the server) and hands the same chunk
/// again once unpaused. When the consumer has drained the buffer to half,
/// it asks the curl thread to unpause (``takeResumeRequest()``), since
/// `curl_easy_pause` must not be called from another thread.
///
/// Idle limit: the transfer stops as ``HTTPError/timedOut(url:phase:)`` when the server sent nothing for
/// `request.timeouts.idle` seconds, checked in libcurl's progress callback (at least once a second).
/// libcurl's own low-speed check averages over several seconds, so it fired far later than asked.
/// Time spent paused does not count (``IdleDeadline``): a slow consumer never reads as an idle server.
///
/// `@unchecked Sendable`: every field touched from more than one thread is
/// guarded by `lock`; `status`, `headerFields` and `deadline` are touched only by the curl thread.
final class CurlTransfer: @unchecked Sendable {
    let request: HTTPRequest
    /// The most body bytes held for the consumer; at least `CURL_MAX_WRITE_SIZE`, the largest chunk libcurl writes.
    let bufferLimit: Int
    private let observer: (@Sendable (BodyBufferEvent) -> Void)?
    private let lock = NSLock()
    private var cancelled = false
    private var multi: UnsafeMutableRawPointer?
    private var head: CheckedContinuation<HTTPResponse, any Error>?
    private var chunks: [[UInt8]] = []
    private var firstChunk = 0
    private var bufferedBytes = 0
    private var paused = false
    private var resumeRequested = false
    private var outcome: HTTPError??
    private var waiter: CheckedContinuation<[UInt8]?, any Error>?
    // Touched only by the curl thread.
    private var status = 0
    private var headerFields: [String: String] = [:]
    private var deadline: IdleDeadline
    /// Whether the transfer stopped because the server stayed silent past the idle limit. Curl thread only.
    private(set) var idleExpired = false

    /// Prepares a transfer; `observer` hears what the body buffer does (for tests).
    init(request: HTTPRequest, bufferLimit: Int, observer: (@Sendable (BodyBufferEvent) -> Void)? = nil) {
        self.request = request
        self.bufferLimit = max(bufferLimit, Int(CURL_MAX_WRITE_SIZE))
        self.observer = observer
        self.deadline = IdleDeadline(limit: .seconds(request.timeouts.idle), start: .now)
    }

    /// Whether the transfer should stop at the next callback.
    var isCancelled: Bool { lock.withLock { cancelled } }

    /// Whether the progress callback should stop the transfer: cancelled, or silent past the idle limit. Curl thread only.
    func shouldStop() -> Bool {
        if isCancelled { return true }
        guard deadline.hasPassed(at: .now) else { return false }
        idleExpired = true
        return true
    }

    /// Asks the curl thread to abort the transfer, waking it if it waits for the network; a waiting consumer gets ``HTTPError/cancelled``.
    func cancel() {
        let waiting = lock.withLock {
            cancelled = true
            if let multi { _ = curl_multi_wakeup(multi) }
            defer { waiter = nil }
            return waiter
        }
        waiting?.resume(throwing: HTTPError.cancelled)
    }

    /// Lets other threads wake the curl thread's wait on `multi` until ``detach()``.
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
        var result: HTTPError?
        do {
            let easy = try CurlEasy(request: request, transfer: self)
            result = easy.perform()
        } catch {
            result = error
        }
        if result != nil, isCancelled { result = .cancelled }
        if let result {
            takeHead()?.resume(throwing: result)
        } else {
            deliverHead()
        }
        end(result)
    }

    /// Records how the transfer ended; the consumer sees it after the buffered chunks.
    private func end(_ result: HTTPError?) {
        let waiting = lock.withLock {
            outcome = .some(result)
            defer { waiter = nil }
            return waiter
        }
        if let result { waiting?.resume(throwing: result) } else { waiting?.resume(returning: nil) }
        observer?(.ended)
    }

    /// Handles one header line (with its line end); returns false to abort.
    func receiveHeader(_ line: UnsafeRawBufferPointer) -> Bool {
        deadline.activity(at: .now)
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

    /// What the write callback answers for one body chunk.
    enum Acceptance {
        /// The chunk was taken.
        case taken
        /// The buffer is full: pause, and libcurl hands this chunk again once unpaused.
        case pause
        /// The transfer was cancelled.
        case abort
    }

    /// Takes one body chunk into the buffer, or hands it straight to a waiting consumer. Curl thread only.
    func receiveBody(_ chunk: UnsafeRawBufferPointer) -> Acceptance {
        let now = ContinuousClock.now
        deadline.activity(at: now)
        deliverHead()
        lock.lock()
        if cancelled {
            lock.unlock()
            return .abort
        }
        if let waiting = waiter {
            waiter = nil
            lock.unlock()
            waiting.resume(returning: Array(chunk))
            return .taken
        }
        if bufferedBytes > 0, bufferedBytes + chunk.count > bufferLimit {
            paused = true
            let buffered = bufferedBytes
            lock.unlock()
            deadline.pause(at: now)
            observer?(.paused(buffered))
            return .pause
        }
        chunks.append(Array(chunk))
        bufferedBytes += chunk.count
        let buffered = bufferedBytes
        lock.unlock()
        observer?(.buffered(buffered))
        return .taken
    }

    /// True once when the consumer asked the curl thread to unpause; the caller must then call `curl_easy_pause`. Curl thread only.
    func takeResumeRequest() -> Bool {
        let resumed = lock.withLock {
            guard resumeRequested else { return false }
            resumeRequested = false
            paused = false
            return true
        }
        if resumed { deadline.resume(at: .now) }
        return resumed
    }

    /// The next body chunk, waiting for the curl thread when none is buffered; nil at the end.
    ///
    /// Throws the transfer's ``HTTPError`` after the chunks that came before
    /// it, and ``HTTPError/cancelled`` once cancelled. Called by one consumer at a time.
    func nextChunk() async throws -> [UInt8]? {
        if let ready = try takeChunk(waiter: nil) { return ready }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                do {
                    if let ready = try takeChunk(waiter: continuation) { continuation.resume(returning: ready) }
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            cancel()
        }
    }

    /// A buffered chunk (asking for an unpause when the buffer fell to half), the end (`.some(nil)`),
    /// or nil after parking `waiter` for the curl thread to resume.
    private func takeChunk(waiter continuation: CheckedContinuation<[UInt8]?, any Error>?) throws -> [UInt8]?? {
        lock.lock()
        defer { lock.unlock() }
        if cancelled { throw HTTPError.cancelled }
        if firstChunk < chunks.count {
            // Taken out of its slot: a buffer that never drains (a consumer just behind curl) must not keep every
            // chunk it ever handed out.
            var chunk: [UInt8] = []
            swap(&chunk, &chunks[firstChunk])
            firstChunk += 1
            if firstChunk == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                firstChunk = 0
            } else if firstChunk >= 64, firstChunk * 2 >= chunks.count {
                chunks.removeFirst(firstChunk)
                firstChunk = 0
            }
            bufferedBytes -= chunk.count
            if paused, !resumeRequested, bufferedBytes <= bufferLimit / 2 {
                resumeRequested = true
                if let multi { _ = curl_multi_wakeup(multi) }
            }
            return .some(chunk)
        }
        if let outcome {
            if let error = outcome { throw error }
            return .some(nil)
        }
        if let continuation {
            waiter = continuation
        }
        return nil
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
        guard let head = takeHead() else { return }
        head.resume(returning: HTTPResponse(status: status, headers: headerFields, body: BodyReader(self).stream))
    }
}

/// What the body buffer of a transfer did, reported on the curl thread to a test's observer.
enum BodyBufferEvent: Sendable, Equatable {
    /// A chunk was buffered; this many bytes now wait for the consumer.
    case buffered(Int)
    /// The next chunk did not fit beside this many buffered bytes: the transfer paused.
    case paused(Int)
    /// The transfer is over (finished, failed or cancelled) and its connection closed.
    case ended
}

/// The consumer's end of a transfer: pulling from it pulls from the bounded buffer, and dropping it cancels the transfer.
final class BodyReader: Sendable {
    private let transfer: CurlTransfer

    init(_ transfer: CurlTransfer) {
        self.transfer = transfer
    }

    deinit { transfer.cancel() }

    /// The body as a stream that reads a chunk only when its consumer asks for one.
    ///
    /// `AsyncThrowingStream(unfolding:)` buffers nothing: each `next()` runs
    /// the closure once, and one iterator's calls never overlap.
    var stream: AsyncThrowingStream<[UInt8], any Error> {
        AsyncThrowingStream { [self] in try await transfer.nextChunk() }
    }
}
