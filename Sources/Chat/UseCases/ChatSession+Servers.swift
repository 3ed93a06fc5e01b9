import LMStudio
import Library

extension ChatSession {
    /// Makes `reference` the server this session talks to from now on: the name of a `server.NAME` profile, or an
    /// http(s) URL; returns the settings now in effect.
    ///
    /// A reply streaming meanwhile finishes on the server it started on. An unknown profile throws
    /// `ConfigurationError.invalidValue` naming the configured ones, as does any change for a session made without
    /// `makeClient`.
    @discardableResult
    public func useServer(_ reference: String) throws -> Configuration {
        try switchServer(to: reference, explicitly: true)
    }

    /// Puts `settings` (the configuration file read again: an editor's `config/reload`) in effect, with a new client
    /// for the server they name; returns them.
    ///
    /// Everything else this session holds stays: its library connection (so its own commits are still told apart
    /// from other processes'), the context items waiting for a message, and what an undo of the last edit or answer
    /// asked again makes current. A session made without `makeClient` throws as ``useServer(_:)`` does.
    @discardableResult
    public func reconfigure(_ settings: Configuration) throws -> Configuration {
        guard let makeClient else {
            throw ConfigurationError.invalidValue(
                key: "server", value: settings.server,
                expected: "the server this session started with (it cannot change)")
        }
        let client: LMStudioClient
        do { client = try makeClient(settings) } catch let error as CredentialsError {
            throw ChatError.credentials(error)
        }
        setServer(ServerInUse(configuration: settings, client: client))
        invalidateModels()
        return settings
    }

    private func switchServer(to reference: String, explicitly: Bool) throws -> Configuration {
        guard makeClient != nil else {
            throw ConfigurationError.invalidValue(
                key: "server", value: reference, expected: "the server this session started with (it cannot change)")
        }
        var chosen = configuration
        try chosen.selectServer(reference, explicitly: explicitly)
        return try reconfigure(chosen)
    }

    /// Continues `conversation` on the `server.NAME` profile its last reply came from: switches to it when the server
    /// in use was not chosen for this run (`--server`, `LLMSTER_SERVER`, `/server`, rpc `server`) and returns its name;
    /// nil when nothing changed (a conversation that cannot follow meets `ChatError.continuationElsewhere` when sent,
    /// naming its profile: see ``heldOn(_:by:)``).
    @discardableResult
    public func followServer(of conversation: Conversation) throws -> String? {
        guard let profile = conversation.serverProfile else { return nil }
        let current = configuration
        guard profile != current.serverProfile, current.servers[profile] != nil, !current.serverIsChosen,
            makeClient != nil
        else { return nil }
        _ = try switchServer(to: profile, explicitly: false)
        return profile
    }

    /// `url`, the server holding the context of `conversation`, with the profile it was held on and how to continue
    /// there (or that the profile is gone from the configuration).
    nonisolated func heldOn(_ url: String?, by conversation: Conversation) -> String? {
        guard let profile = conversation.serverProfile, profile != configuration.serverProfile else { return url }
        let why =
            configuration.servers[profile] != nil
            ? "server profile \(profile); --server \(profile) or /server \(profile) continues there"
            : "server profile \(profile), which this configuration does not define"
        return (url ?? "an unrecorded server") + " (\(why))"
    }
}
