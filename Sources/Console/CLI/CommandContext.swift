import Chat
import Foundation
import HTTP
import LMStudio
import Library
import Markdown
import Synchronization
import SystemSupport
import TerminalMarkdown

/// What every command needs: settings, where the server and library are, and the output streams.
public struct CommandContext: Sendable {
    public var environment: [String: String]
    /// Where llmster's files are, from `environment`.
    public var paths: Paths
    public var configuration: Configuration
    /// The configuration file (`--config`, or the XDG default).
    public var configurationPath: String
    /// The library file (`--library`, or the XDG default).
    public var libraryPath: String
    /// `--markdown`, else the configuration's `markdown`.
    public var markdownMode: String
    /// Whether `--demo` is running the built-in simulator.
    public var isDemo: Bool
    /// `--preset`: the preset a new or continued conversation takes.
    public var preset: String?
    /// What named the server in effect (`doctor` says it).
    public var serverSource = ServerDiscovery.Source.builtInDefault
    /// How the terminal on standard output was found to count emoji columns (`MeasuredWidths`), which stands in for
    /// the guess from its name while `width_mode` is `auto`.
    public var measuredWidthModel: WidthModel?
    public var output = StandardStream.output
    public var errors = StandardStream.error

    /// The server URL in effect.
    public var server: String { configuration.server }

    /// The API token from `LM_API_TOKEN` or the credentials file; throws when the file is unsafe or the token cannot
    /// be sent. A token of an unusual shape is used, with a warning the first time in this process.
    public func token() throws -> String? {
        let credentials = try Credentials.load(
            environment: environment, file: paths.credentialsFile, profile: configuration.serverProfile)
        if let warning = credentials?.shapeWarning,
            Self.tokenShapeWarned.withLock({ warned in
                defer { warned = true }
                return !warned
            })
        {
            warn(warning)
        }
        return credentials?.token
    }

    /// Set once the unusual-shape warning was shown.
    private static let tokenShapeWarned = Mutex(false)

    /// The `User-Agent` llmster sends: the client's name and version, so server logs do not read as LM Studio's
    /// own daemon (also called `llmster`).
    public static let userAgent = "\(LMStudioClient.defaultUserAgent)/\(App.version)"

    /// A client for the configured server; commands reach it only through a session's use cases.
    private func client() throws -> LMStudioClient {
        client(token: try token())
    }

    private func client(token: String?) -> LMStudioClient {
        LMStudioClient(
            server: server, token: token, transport: CurlTransport(),
            timeouts: HTTPTimeouts(connect: configuration.connectTimeout, idle: configuration.idleTimeout),
            userAgent: Self.userAgent)
    }

    /// Opens the library and recovers replies a crashed run left mid-stream; says so when it is read-only.
    public func openLibrary() throws -> LibraryStore {
        let store = try LibraryStore(path: libraryPath)
        if store.isReadOnly {
            warn("library \(libraryPath) is read-only: showing it, but nothing can be saved")
        }
        _ = try store.recoverInterruptedReplies()
        return store
    }

    /// A chat session on a freshly opened library; it can move to another server profile (`/server`, rpc `server`).
    public func session() throws -> ChatSession {
        ChatSession(
            client: try client(), library: try openLibrary(), configuration: configuration, makeClient: clientMaker)
    }

    /// A session for work on the library alone (export, import, backup): a bad token does not stop it.
    public func librarySession() throws -> ChatSession {
        ChatSession(
            client: client(token: (try? token()) ?? nil), library: try openLibrary(), configuration: configuration,
            makeClient: clientMaker)
    }

    /// Makes a client for another server of the same settings, with that profile's token.
    private var clientMaker: @Sendable (Configuration) throws -> LMStudioClient {
        { [self] configuration in
            var context = self
            context.configuration = configuration
            return try context.client()
        }
    }

    /// Prints `message` to standard error as `llmster: message`, neutralising control characters; on a terminal it is
    /// wrapped at word boundaries to the width, continuation lines indented under the message.
    public func warn(_ message: String) {
        errors.wrappedLine("llmster: \(ServerURL.redactingPasswords(in: message))", indent: 9)
    }
}
