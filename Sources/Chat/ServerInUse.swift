import LMStudio

/// The server a ``ChatSession`` talks to: the configuration naming it and a client for it, always changed together.
public struct ServerInUse: Sendable {
    /// The settings, with `server` (and `serverProfile`) naming this server.
    public var configuration: Configuration
    /// A client for `configuration.server`, with that profile's token.
    public var client: LMStudioClient
}
