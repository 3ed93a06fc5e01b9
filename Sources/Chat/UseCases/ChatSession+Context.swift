import Foundation
import HTTP
import Library
import SystemSupport

/// Context items: reading, fetching and running them with the configured limits, checking a turn's items against
/// the context before anything is saved or sent, and the items an editor added for its next message.
extension ChatSession {
    /// The configured `context_item_limit` and `context_message_limit`.
    public nonisolated var contextLimits: ContextLimits {
        ContextLimits(item: configuration.contextItemLimit, message: configuration.contextMessageLimit)
    }

    /// The items a file, directory or glob pattern gives (``ContextReader``), relative to `directory`.
    public nonisolated func readContext(_ path: String, directory: String = FileManager.default.currentDirectoryPath)
        throws(ContextError) -> ContextReader.Reading
    {
        try ContextReader(limits: contextLimits, directory: directory).read(path: path)
    }

    /// The page at `url` (``ContextPage``), through the server's transport with the configured timeouts.
    public nonisolated func fetchContext(_ url: String, transport: any Transport) async throws(ContextError)
        -> ContextItem
    {
        let timeouts = HTTPTimeouts(connect: configuration.connectTimeout, idle: configuration.idleTimeout)
        return try await ContextPage(transport: transport, timeouts: timeouts, limits: contextLimits).fetch(url)
    }

    /// The output of `command` (``ContextCommand``), bounded by `command_timeout`; cancelling the task kills the
    /// command's process group and throws `ContextError.commandStopped`.
    public nonisolated func runContext(_ command: String) async throws(ContextError) -> ContextItem {
        let limits = contextLimits
        let timeout = configuration.commandTimeout
        let stop: StopRequest
        do { stop = try StopRequest() } catch { throw .command(command, reason: error.reason) }
        // On a thread of its own: the command's wait must not hold one of the few cooperative threads.
        let result = await withTaskCancellationHandler {
            await BlockingThread.run("llmster-command") { () -> Result<ContextItem, ContextError> in
                Result { () throws(ContextError) in
                    try ContextCommand.run(command, limits: limits, timeout: timeout, stop: stop)
                }
            }
        } onCancel: {
            stop.request()
        }
        return try result.get()
    }

    /// The items waiting for the next message on `conversationId` (nil: the next new conversation), oldest first.
    public func pendingContext(_ conversationId: String?) -> [ContextItem] {
        pendingContextItems[conversationId ?? ""] ?? []
    }

    /// Adds `items` to those waiting for the next message on `conversationId`; throws when together they would exceed
    /// the message limit (nothing is added then).
    public func addPendingContext(_ items: [ContextItem], to conversationId: String?) throws(ContextError)
        -> [ContextItem]
    {
        let all = pendingContext(conversationId) + items
        try contextLimits.check(all)
        pendingContextItems[conversationId ?? ""] = all
        return all
    }

    /// Replaces the items waiting for the next message on `conversationId` (an empty list clears them).
    public func setPendingContext(_ items: [ContextItem], for conversationId: String?) {
        pendingContextItems[conversationId ?? ""] = items.isEmpty ? nil : items
    }
}
