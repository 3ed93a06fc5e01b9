internal import CCurl
import Foundation

/// A configured libcurl easy handle for one request, used and freed on the thread that made it.
///
/// Not `Sendable`: the handle, its multi handle and every callback live on
/// the curl thread of ``CurlTransfer``; other threads reach the transfer only
/// through ``CurlTransfer``'s locked state and `curl_multi_wakeup`.
final class CurlEasy {
    private let handle: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
    private let transfer: CurlTransfer

    /// Creates the handle and sets every option; throws when libcurl refuses one.
    init(request: HTTPRequest, transfer: CurlTransfer) throws(HTTPError) {
        guard let handle = curl_easy_init() else {
            errorBuffer.deallocate()
            throw HTTPError.transfer(url: request.url, reason: "libcurl could not create a handle")
        }
        self.handle = handle
        self.transfer = transfer
        errorBuffer.initialize(to: 0)
        try configure(request)
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    /// Runs the transfer to its end; returns the failure, if any.
    ///
    /// A single-handle multi loop rather than `curl_easy_perform`, so that
    /// ``CurlTransfer/cancel()`` and a consumer that drained the paused body
    /// can wake the wait at once via `curl_multi_wakeup`.
    func perform() -> HTTPError? {
        guard let multi = curl_multi_init() else {
            return .transfer(url: transfer.request.url, reason: "libcurl could not create a handle")
        }
        _ = curl_multi_add_handle(multi, handle)
        transfer.attach(multi)
        defer {
            transfer.detach()
            _ = curl_multi_remove_handle(multi, handle)
            _ = curl_multi_cleanup(multi)
        }
        var running: Int32 = 1
        while running > 0 {
            let status = curl_multi_perform(multi, &running)
            guard status == CURLM_OK else {
                return .transfer(url: transfer.request.url, reason: String(cString: curl_multi_strerror(status)))
            }
            if transfer.isCancelled { return .cancelled }
            if transfer.takeResumeRequest() {
                // The consumer drained the buffer: unpausing here, on the thread that owns the
                // handle, may call the write callback again before it returns.
                _ = llmster_curl_unpause(handle)
                continue
            }
            if running > 0 { _ = curl_multi_poll(multi, nil, 0, 1000, nil) }
        }
        var code = CURLE_OK
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            if message.pointee.msg == CURLMSG_DONE { code = message.pointee.data.result }
        }
        var responseCode = 0
        _ = llmster_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &responseCode)
        transfer.noteStatus(responseCode)
        return code == CURLE_OK ? nil : error(for: code)
    }

    private func configure(_ request: HTTPRequest) throws(HTTPError) {
        // Unretained: `self.transfer` keeps the transfer alive as long as the handle, hence through every callback.
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        var codes: [CURLcode] = [
            llmster_curl_setopt_string(handle, CURLOPT_URL, request.url),
            llmster_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"),
            llmster_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1),
            llmster_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0),
            // "" offers every encoding this libcurl decodes, so a reply a proxy compressed arrives decoded.
            llmster_curl_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, ""),
            llmster_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer),
            llmster_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(max(1, request.timeouts.connect * 1000))),
            llmster_curl_setopt_long(handle, CURLOPT_NOPROGRESS, 0),
            llmster_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context),
            llmster_curl_setopt_xferinfo_function(handle) { context, _, _, _, _ in
                guard let context else { return 1 }
                return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().shouldStop() ? 1 : 0
            },
            llmster_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context),
            llmster_curl_setopt_header_function(handle) { data, size, count, context in
                guard let context else { return 0 }
                let line = UnsafeRawBufferPointer(start: data, count: size * count)
                return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().receiveHeader(line)
                    ? size * count : 0
            },
            llmster_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context),
            llmster_curl_setopt_write_function(handle) { data, size, count, context in
                guard let context else { return 0 }
                let chunk = UnsafeRawBufferPointer(start: data, count: size * count)
                switch Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().receiveBody(chunk) {
                case .taken: return size * count
                case .pause: return Int(CURL_WRITEFUNC_PAUSE)
                case .abort: return 0
                }
            }
        ]
        // An empty `Expect:` stops curl from waiting for `100 Continue` before larger bodies.
        for line in request.headers.map({ "\($0.key): \($0.value)" }) + ["Expect:"] {
            headerList = curl_slist_append(headerList, line)
        }
        codes.append(llmster_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList))
        switch (request.method.uppercased(), request.body) {
        case ("GET", nil):
            codes.append(llmster_curl_setopt_long(handle, CURLOPT_HTTPGET, 1))
        case ("HEAD", nil):
            codes.append(llmster_curl_setopt_long(handle, CURLOPT_NOBODY, 1))
        case (let method, let body):
            if method != "POST" {
                codes.append(llmster_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, method))
            }
            let body = body ?? []
            codes.append(llmster_curl_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
            codes.append(
                body.isEmpty
                    ? llmster_curl_setopt_string(handle, CURLOPT_COPYPOSTFIELDS, "")
                    : body.withUnsafeBytes {
                        llmster_curl_setopt_pointer(
                            handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress))
                    })
        }
        if let failed = codes.first(where: { $0 != CURLE_OK }) {
            throw error(for: failed)
        }
    }

    private func error(for code: CURLcode) -> HTTPError {
        let url = transfer.request.url
        let detail =
            errorBuffer.pointee == 0
            ? String(cString: curl_easy_strerror(code))
            : String(cString: errorBuffer)
        switch code {
        case CURLE_ABORTED_BY_CALLBACK:
            return transfer.idleExpired ? .timedOut(url: url, phase: .idle) : .cancelled
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            return .invalidURL(url)
        case CURLE_COULDNT_RESOLVE_HOST:
            return .unreachable(url: url, reason: "could not resolve host")
        case CURLE_COULDNT_RESOLVE_PROXY:
            return .unreachable(url: url, reason: "could not resolve proxy")
        case CURLE_COULDNT_CONNECT:
            return .unreachable(url: url, reason: connectFailureReason(detail: detail))
        case CURLE_OPERATION_TIMEDOUT:
            var connectMicroseconds: curl_off_t = 0
            _ = llmster_curl_getinfo_off_t(handle, CURLINFO_CONNECT_TIME_T, &connectMicroseconds)
            return .timedOut(url: url, phase: connectMicroseconds == 0 ? .connect : .idle)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
            CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
            CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_USE_SSL_FAILED:
            return .tls(url: url, reason: detail)
        case CURLE_GOT_NOTHING:
            return .transfer(url: url, reason: "the server closed the connection without replying")
        case CURLE_PARTIAL_FILE:
            return .transfer(url: url, reason: "the connection closed before the whole response arrived")
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR:
            return .transfer(url: url, reason: "the connection was lost (\(detail))")
        case CURLE_WRITE_ERROR where transfer.isCancelled:
            return .cancelled
        default:
            return .transfer(url: url, reason: detail)
        }
    }

    private func connectFailureReason(detail: String) -> String {
        var osError = 0
        _ = llmster_curl_getinfo_long(handle, CURLINFO_OS_ERRNO, &osError)
        switch Int32(osError) {
        case ECONNREFUSED: return "connection refused"
        case ENETUNREACH: return "network unreachable"
        case EHOSTUNREACH: return "host unreachable"
        case ETIMEDOUT: return "connection timed out"
        case 0: return detail
        default: return String(cString: strerror(Int32(osError))).lowercased()
        }
    }
}
