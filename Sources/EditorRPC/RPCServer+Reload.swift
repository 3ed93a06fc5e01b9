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
    /// It runs only when no other request is running (a streaming reply keeps the settings it started with). The
    /// session stays, with what it holds for the turns in hand (see `ChatSession.reconfigure`); the server address
    /// stays the one llmster rpc started with.
    func reload(id: RequestId) async {
        do {
            guard let session else {
                throw RPCError(
                    code: RPCError.notInitializedCode, message: "Send initialize first.", kind: "not_initialized")
            }
            guard runningCount(besides: id.value) == 0 else {
                throw RPCError.invalidRequest("requests are running; reload the configuration when they have ended")
            }
            try await reloadSettings(of: session)
            send(response: id, result: .object(["presets": .array(session.presets.map(PresetMethods.json))]))
        } catch {
            send(response: id, error: RPCError.from(error))
        }
    }

    /// Reads the settings again when the configuration file changed since it was last read and nothing is
    /// running; a file that no longer reads keeps the settings in use (and says why on standard error).
    func reloadIfChanged() async {
        guard let session, reloadConfiguration != nil,
            ConfigurationStamp(path: configurationPath) != configurationStamp,
            runningCount(besides: .null) == 0
        else { return }
        do { try await reloadSettings(of: session) } catch {
            configurationStamp = ConfigurationStamp(path: configurationPath)
            log("llmster rpc: \(configurationPath) was not read again: \(error)")
        }
    }

    /// Puts the settings read again in effect in the session, keeping the client's coalescing interval and the server
    /// profile `servers/use` (or `chat/send`'s `server`) chose, while the file still has it.
    private func reloadSettings(of session: ChatSession) async throws {
        let stamp = ConfigurationStamp(path: configurationPath)
        var fresh = try reloadConfiguration?() ?? configuration
        fresh.displayIntervalMilliseconds = configuration.displayIntervalMilliseconds
        let inUse = session.configuration
        if inUse.serverIsChosen, let profile = inUse.serverProfile, fresh.servers[profile] != nil {
            try fresh.selectServer(profile)
        }
        try await session.reconfigure(fresh)
        configuration = fresh
        configurationStamp = stamp
    }
}
