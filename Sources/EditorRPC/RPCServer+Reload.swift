import Chat
import Foundation

/// The configuration file's modification time and size: a change means llmster rpc reads it again.
struct ConfigurationStamp: Equatable, Sendable {
    let modified: Date?
    let size: Int?

    /// The file at `path` as it is now; nil when there is none.
    init?(path: String) {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
        modified = attributes[.modificationDate] as? Date
        size = (attributes[.size] as? NSNumber)?.intValue
    }
}

extension RPCServer {
    /// `config/reload`: reads the settings again (presets, default model, load policy…) and answers with the presets.
    ///
    /// The session is made afresh, so it runs only when no other request is running (a streaming reply keeps the
    /// session it started on). The server address stays the one llmster rpc started with.
    func reload(id: RequestId) {
        do {
            guard session != nil else {
                throw RPCError(
                    code: RPCError.notInitializedCode, message: "Send initialize first.", kind: "not_initialized")
            }
            guard runningCount(besides: id.value) == 0 else {
                throw RPCError.invalidRequest("requests are running; reload the configuration when they have ended")
            }
            let session = try reloadSession()
            send(response: id, result: .object(["presets": .array(session.presets.map(PresetMethods.json))]))
        } catch {
            send(response: id, error: RPCError.from(error))
        }
    }

    /// Reads the settings again when the configuration file changed since the session was made and nothing is
    /// running; a file that no longer reads keeps the settings in use (and says why on standard error).
    func reloadIfChanged() {
        guard reloadConfiguration != nil, ConfigurationStamp(path: configurationPath) != configurationStamp,
            runningCount(besides: .null) == 0
        else { return }
        do { _ = try reloadSession() } catch {
            configurationStamp = ConfigurationStamp(path: configurationPath)
            log("llmster rpc: \(configurationPath) was not read again: \(error)")
        }
    }

    /// Makes the session afresh from the settings read again, keeping the client's coalescing interval and the server
    /// profile `servers/use` (or `chat/send`'s `server`) chose, while the file still has it.
    private func reloadSession() throws -> ChatSession {
        let stamp = ConfigurationStamp(path: configurationPath)
        var fresh = try reloadConfiguration?() ?? configuration
        fresh.displayIntervalMilliseconds = configuration.displayIntervalMilliseconds
        if let inUse = session?.configuration, inUse.serverIsChosen, let profile = inUse.serverProfile,
            fresh.servers[profile] != nil
        {
            try fresh.selectServer(profile)
        }
        let session = try makeSession(fresh)
        self.session = session
        configuration = fresh
        configurationStamp = stamp
        return session
    }
}
