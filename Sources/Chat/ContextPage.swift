import Foundation
import HTTP

/// Fetches a web page as a context item through the HTTP transport: redirects followed (at most 5), the
/// configured timeouts, a size cap, `text/*` and JSON only, HTML turned into readable text (``ContextHTML``).
public struct ContextPage: Sendable {
    public let transport: any Transport
    public let timeouts: HTTPTimeouts
    public let limits: ContextLimits

    /// How many times larger than the item limit an HTML page may be before its text is taken out (markup, scripts
    /// and styles are most of a page).
    public static let markupAllowance = 8

    /// Creates a fetcher.
    public init(transport: any Transport, timeouts: HTTPTimeouts, limits: ContextLimits) {
        self.transport = transport
        self.timeouts = timeouts
        self.limits = limits
    }

    /// The page at `url`, named by the URL as given and stamped with `now`.
    public func fetch(_ url: String, now: Date = Date()) async throws(ContextError) -> ContextItem {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
            ["http", "https"].contains(scheme),
            parsed.host?.isEmpty == false
        else { throw .invalidURL(url) }
        var current = parsed.absoluteString
        for _ in 0...5 {
            let response: HTTPResponse
            do {
                response = try await transport.send(
                    HTTPRequest(
                        url: current, headers: ["Accept": "text/html, text/*;q=0.9, application/json;q=0.8"],
                        timeouts: timeouts))
            } catch {
                throw .fetch(url, reason: Self.reason(error))
            }
            if [301, 302, 303, 307, 308].contains(response.status), let location = response.headers["location"] {
                guard let next = URL(string: location, relativeTo: URL(string: current))?.absoluteURL,
                    ["http", "https"].contains(next.scheme?.lowercased() ?? "")
                else {
                    throw .fetch(url, reason: "it redirects to \(location), not an http or https URL")
                }
                current = next.absoluteString
                continue
            }
            guard (200..<300).contains(response.status) else { throw .httpStatus(url, status: response.status) }
            let type = (response.headers["content-type"] ?? "text/plain").lowercased()
            let mediaType = type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? type
            let isHTML = mediaType == "text/html" || mediaType == "application/xhtml+xml"
            guard
                isHTML || mediaType.hasPrefix("text/") || mediaType == "application/json"
                    || mediaType.hasSuffix("+json")
            else {
                throw .unsupportedType(url, type: mediaType)
            }
            let cap = isHTML ? limits.item * Self.markupAllowance : limits.item
            let bytes: [UInt8]
            do { bytes = try await response.collect(limit: cap) } catch HTTPError.bodyTooLarge {
                throw isHTML ? .pageTooLarge(url, limit: cap) : .itemTooLarge(url, size: nil, limit: cap)
            } catch {
                throw .fetch(url, reason: Self.reason(error))
            }
            let text: String
            if isHTML {
                text = ContextHTML.text(bytes, url: current)
                if text.isEmpty, !bytes.isEmpty { throw .noReadableText(url) }
            } else if let decoded = String(validating: bytes, as: UTF8.self), !bytes.contains(0) {
                text = decoded
            } else if type.contains("charset=iso-8859-1") || type.contains("charset=latin1"), !bytes.contains(0) {
                text = String(decoding: bytes.map { UInt16($0) }, as: UTF16.self)
            } else {
                throw bytes.contains(0) ? .binary(url) : .notUTF8(url)
            }
            guard text.utf8.count <= limits.item else {
                throw .itemTooLarge(url, size: text.utf8.count, limit: limits.item)
            }
            return ContextItem(name: ServerURL.redactingPasswords(in: url), source: .page(fetchedAt: now), text: text)
        }
        throw .tooManyRedirects(url)
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? HTTPError {
            switch error {
            case .timedOut(_, .connect): return "the connection timed out"
            case .timedOut(_, .idle): return "the server stopped sending data (timed out)"
            case .unreachable(_, let reason), .tls(_, let reason), .transfer(_, let reason): return reason
            default: return error.description
            }
        }
        if error is CancellationError { return "cancelled" }
        return String(describing: error)
    }
}
