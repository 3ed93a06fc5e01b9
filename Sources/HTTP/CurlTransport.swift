internal import CCurl
import Foundation

/// Sends requests with libcurl: one easy handle on its own thread per request.
///
/// Redirects are not followed: a 3xx status comes back as the response, so a
/// request never silently lands on another host. Only `http` and `https` are
/// allowed. libcurl's proxy environment variables (`http_proxy`,
/// `https_proxy`, `no_proxy`) are honoured.
public struct CurlTransport: Transport {
    private static let globalInit: Void = { _ = llmster_curl_global_init() }()

    /// Creates a transport, initialising libcurl once per process.
    public init() {
        Self.globalInit
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let transfer = CurlTransfer(request: request)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { head in
                transfer.start(reportingHeadTo: head)
            }
        } onCancel: {
            transfer.cancel()
        }
    }
}
