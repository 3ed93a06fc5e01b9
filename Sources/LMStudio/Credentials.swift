import Foundation
import SystemSupport

/// The LM Studio API token and where it was found.
///
/// Looked up in `LM_API_TOKEN`, then in the credentials file
/// (`Paths.credentialsFile`: `$XDG_CONFIG_HOME/llmster/credentials`, by default
/// `~/.config/llmster/credentials`). The file holds one `token = sk-lm-…`
/// line (a line with just the token also works); blank lines and lines
/// starting with `#` are ignored. It must not be accessible to group or
/// others. The token never appears in any `description`.
public struct Credentials: Sendable, Equatable, CustomStringConvertible {
    /// Where a token came from.
    public enum Source: Sendable, Equatable, CustomStringConvertible {
        /// The `LM_API_TOKEN` environment variable.
        case environment
        /// A credentials file at this path.
        case file(String)

        public var description: String {
            switch self {
            case .environment: "LM_API_TOKEN"
            case .file(let path): path
            }
        }
    }

    /// The bearer token; keep it out of logs and messages.
    public let token: String
    /// Where the token was found.
    public let source: Source

    /// Wraps a token, refusing only one that cannot be sent in an HTTP header (see ``isSendable(_:)``).
    ///
    /// A token of another shape than LM Studio's tokens have today is kept (``hasUsualShape``): the docs give no
    /// format, and a new one must not lock anyone out.
    public init(token: String, source: Source) throws(CredentialsError) {
        guard Self.isSendable(token) else { throw .malformedToken(source: source.description) }
        self.token = token
        self.source = source
    }

    public var description: String { "API token (redacted) from \(source)" }

    /// Whether the token has the shape LM Studio's tokens have been seen to have (``isWellFormed(_:)``).
    public var hasUsualShape: Bool { Self.isWellFormed(token) }

    /// The warning to show once when the token has an unusual shape; never contains the token.
    public var shapeWarning: String? {
        hasUsualShape
            ? nil
            : "the API token from \(source) does not look like the LM Studio tokens seen so far (sk-lm-…:…); sending it anyway."
    }

    /// Finds the token in `LM_API_TOKEN` of `environment`, else in `file` (for a server `profile`, its `token.PROFILE`
    /// line first); nil when neither has one.
    public static func load(environment: [String: String], file: String, profile: String? = nil)
        throws(CredentialsError) -> Credentials?
    {
        if let token = environment["LM_API_TOKEN"]?.trimmingCharacters(in: .whitespacesAndNewlines), !token.isEmpty {
            return try Credentials(token: token, source: .environment)
        }
        if let profile, let token = try profileToken(at: file, profile: profile) {
            return try Credentials(token: token, source: .file(file))
        }
        guard let token = try readToken(at: file) else { return nil }
        return try Credentials(token: token, source: .file(file))
    }

    /// The `token.PROFILE = …` line of the file at `path`: the token of one server profile.
    public static func profileToken(at path: String, profile: String) throws(CredentialsError) -> String? {
        for line in try readLines(at: path) {
            if let (key, value) = entry(line), key == "token.\(profile)" { return value }
        }
        return nil
    }

    /// The token in the file at `path`: its `token = …` line, or a line holding only a token; nil when there is none.
    public static func readToken(at path: String) throws(CredentialsError) -> String? {
        for line in try readLines(at: path) {
            guard let (key, value) = entry(line) else { return line }
            if key == "token" { return value }
        }
        return nil
    }

    /// Secret HTTP headers for integrations, from the `integration.NAME.header.HEADER = VALUE` lines of `file`, by integration name.
    ///
    /// They live here (mode 0600) rather than in the configuration, the library, exports or backups.
    public static func integrationHeaders(file: String) throws(CredentialsError) -> [String: [String: String]] {
        var headers: [String: [String: String]] = [:]
        for line in try readLines(at: file) {
            guard let (key, value) = entry(line), key.hasPrefix("integration.") else { continue }
            let parts = key.dropFirst("integration.".count).components(separatedBy: ".header.")
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { continue }
            headers[parts[0], default: [:]][parts[1]] = value
        }
        return headers
    }

    /// The file's meaningful lines (comments and blanks dropped); none when it does not exist; refused when others can read it.
    private static func readLines(at path: String) throws(CredentialsError) -> [String] {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return [] }
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        let mode = UInt16(info.st_mode & 0o777)
        guard mode & 0o077 == 0 else { throw .insecurePermissions(path: path, mode: mode) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadable(path: path, reason: "cannot read the file")
        }
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    private static func entry(_ line: String) -> (key: String, value: String)? {
        guard let equals = line.firstIndex(of: "=") else { return nil }
        return (
            line[..<equals].trimmingCharacters(in: .whitespaces),
            line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        )
    }

    /// Writes `token` to `path` atomically (`AtomicFile`, mode 0600), creating the directory 0700.
    public static func save(token: String, to path: String) throws(CredentialsError) {
        guard isSendable(token) else { throw .malformedToken(source: "the token to save") }
        do {
            try AtomicFile.write(
                Array("# LM Studio API token for llmster\ntoken = \(token)\n".utf8), to: path, permissions: 0o600)
        } catch let error as AtomicFileError {
            throw .unwritable(path: path, reason: error.reason)
        } catch {
            throw .unwritable(path: path, reason: "\(error)")
        }
    }

    /// Whether `token` can go in an `Authorization` header: printable ASCII without spaces, at most 4 KiB.
    public static func isSendable(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.count <= 4096 && token.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// Whether `token` looks like `sk-lm-` + 8 letters or digits + `:` + 20 letters or digits.
    ///
    /// Observed, not documented: LM Studio's docs give no token format. A token of another shape is sent with a warning.
    public static func isWellFormed(_ token: String) -> Bool {
        let bytes = Array(token.utf8)
        let prefix = Array("sk-lm-".utf8)
        guard bytes.count == prefix.count + 8 + 1 + 20, bytes.starts(with: prefix),
            bytes[prefix.count + 8] == UInt8(ascii: ":")
        else { return false }
        let isAlphanumeric = { (byte: UInt8) in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        return bytes[prefix.count..<(prefix.count + 8)].allSatisfy(isAlphanumeric)
            && bytes[(prefix.count + 9)...].allSatisfy(isAlphanumeric)
    }
}

/// Why the API token could not be read or saved; never contains the token.
public enum CredentialsError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
    /// The file is accessible to group or others; `mode` holds its permission bits.
    case insecurePermissions(path: String, mode: UInt16)
    /// The file exists but cannot be read.
    case unreadable(path: String, reason: String)
    /// The token from `source` cannot be sent in an HTTP header (spaces, control or non-ASCII characters).
    case malformedToken(source: String)
    /// The file or its directory cannot be written.
    case unwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case .insecurePermissions(let path, let mode):
            "Refusing to read the API token from \(path): other users can access it (mode \(String(mode, radix: 8))). Run `chmod 600 \(path)`."
        case .unreadable(let path, let reason):
            "Cannot read the API token from \(path): \(reason)."
        case .malformedToken(let source):
            "The API token from \(source) cannot be sent: it is empty or contains spaces, control or non-ASCII characters."
        case .unwritable(let path, let reason):
            "Cannot save the API token to \(path): \(reason)."
        }
    }

    public var errorDescription: String? { description }
}
