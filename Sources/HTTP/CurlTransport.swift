internal import CCurl
import Foundation

/// Sends requests with libcurl: one easy handle on its own thread per request.
///
/// Redirects are not followed: a 3xx status comes back as the response, so a
/// request never silently lands on another host. Only `http` and `https` are
/// allowed. libcurl's proxy environment variables (`http_proxy`,
/// `https_proxy`, `no_proxy`) are honoured. A response body is read from the
/// network only as fast as it is consumed: at most `bodyBufferLimit` bytes
/// wait for the consumer, then the transfer pauses.
public struct CurlTransport: Transport {
    private static let globalInit: Void = { _ = llmster_curl_global_init() }()
    /// The default of `bodyBufferLimit`.
    public static let defaultBodyBufferLimit = 256 << 10
    private let bodyBufferLimit: Int
    private let bufferObserver: (@Sendable (BodyBufferEvent) -> Void)?

    /// Creates a transport, initialising libcurl once per process.
    ///
    /// `bodyBufferLimit` is raised to libcurl's largest write (16 KiB) when smaller.
    public init(bodyBufferLimit: Int = CurlTransport.defaultBodyBufferLimit) {
        self.init(bodyBufferLimit: bodyBufferLimit, bufferObserver: nil)
    }

    /// Creates a transport whose `bufferObserver` hears what each transfer's body buffer does.
    init(bodyBufferLimit: Int, bufferObserver: (@Sendable (BodyBufferEvent) -> Void)?) {
        Self.globalInit
        self.bodyBufferLimit = bodyBufferLimit
        self.bufferObserver = bufferObserver
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let transfer = CurlTransfer(request: request, bufferLimit: bodyBufferLimit, observer: bufferObserver)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { head in
                transfer.start(reportingHeadTo: head)
            }
        } onCancel: {
            transfer.cancel()
        }
    }
}
