import Foundation
import LMStudio
import Library
import Synchronization
import SystemSupport

/// The engine every face of llmster shares: sends a turn, streams the reply, keeps the library current.
///
/// Owns the library connection, so every read and write of the library in a process goes through
/// this actor (`withLibrary`). The user turn is saved before anything is sent; the reply is saved as
/// it streams (at least every `saveInterval`) and finally as complete, incomplete or error, each save as its
/// `ReplyPersistence` decides.
public actor ChatSession {
    /// The settings in effect, with the server in use (which ``useServer(_:)`` changes).
    public nonisolated var configuration: Configuration { server.withLock { $0.configuration } }
    /// The client for the server in use; faces reach it only through the use cases (`loadModel`, `download`, `send`, …).
    nonisolated var client: LMStudioClient { server.withLock { $0.client } }
    /// The server in use and its client, changed together by ``useServer(_:)``.
    private nonisolated let server: Mutex<ServerInUse>
    /// Makes a client for a configuration whose server changed; nil: the server cannot be changed.
    nonisolated let makeClient: (@Sendable (Configuration) throws -> LMStudioClient)?
    /// The library connection; nil only when reopening it after a restore failed.
    private var openLibrary: LibraryStore?
    private let clock: any DisplayClock
    private let saveInterval: Duration
    private var cachedModels: [Model]?
    /// Context items an editor added for the next message, by conversation id ("" for the next new conversation).
    var pendingContextItems: [String: [ContextItem]] = [:]
    /// The conversations a send of this process is writing (see `writerLock`).
    var writingConversations: Set<String> = []
    /// The sends waiting for each conversation's writer turn, in the order they asked; each is resumed with true when
    /// its turn comes, false when it was cancelled first.
    var waitingWriters: [String: [(waiter: WriterWaiter, continuation: CheckedContinuation<Bool, Never>)]] = [:]
    /// What each conversation's last edit or answer asked again replaced, by conversation id, so that withdrawing it
    /// (an editor's undo) makes that current again (see `withdrawLastExchange`).
    var replacedTurns: [String: ReplacedTurn] = [:]
    /// The thread the session runs on (see `LibraryExecutor`).
    private nonisolated let executor = LibraryExecutor(name: "llmster library")

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Creates a session on `library`, which it owns from now on.
    ///
    /// `makeClient` lets ``useServer(_:)`` reach another server (a `server.NAME` profile, with its own token).
    public init(
        client: LMStudioClient, library: sending LibraryStore, configuration: Configuration,
        clock: any DisplayClock = SystemDisplayClock(), saveInterval: Duration = .seconds(1),
        makeClient: (@Sendable (Configuration) throws -> LMStudioClient)? = nil
    ) {
        server = Mutex(ServerInUse(configuration: configuration, client: client))
        self.makeClient = makeClient
        openLibrary = library
        self.clock = clock
        self.saveInterval = saveInterval
    }

    /// Runs `body` with the library, on this actor.
    public func withLibrary<T: Sendable>(_ body: @Sendable (LibraryStore) throws -> T) throws -> T {
        try body(library)
    }

    /// Finds the conversation `reference` names (as ``resolveConversation(_:)`` does) and runs `body` with it on the
    /// library in the same turn, so a request that finds a conversation and then reads or changes it is not
    /// overtaken between the two by one sent after it.
    public func withConversation<T: Sendable>(
        _ reference: String, _ body: @Sendable (Conversation, LibraryStore) throws -> T
    ) throws -> T {
        try body(try resolveConversation(reference), library)
    }

    /// Closes the library, runs `body` with its path (it may replace the file, as a restore does), then opens that path afresh.
    ///
    /// The old connection is closed first: it would still point at a renamed previous file, and closing it
    /// later would remove the new file's `-wal` and `-shm` by name. The process's shared hold on the library's lock is
    /// kept throughout, so a restore turns that same lock exclusive: a child being started, which holds a copy of the
    /// lock's descriptor until it executes its program, is then not taken for another process using the library.
    public func reopenLibrary<T: Sendable>(around body: @Sendable (String) throws -> T) throws -> T {
        let path = try library.path
        let hold = LibraryHold(path: path)
        defer { withExtendedLifetime(hold) {} }
        openLibrary = nil
        let result: T
        do { result = try body(path) } catch {
            openLibrary = try? LibraryStore(path: path)
            throw error
        }
        openLibrary = try LibraryStore(path: path)
        return result
    }

    var library: LibraryStore {
        get throws {
            guard let openLibrary else { throw ChatError.libraryClosed }
            return openLibrary
        }
    }

    /// The server's models, cached until `refresh` is asked for.
    public func models(refresh: Bool = false) async throws -> [Model] {
        if !refresh, let cachedModels { return cachedModels }
        let models = try await client.models()
        cachedModels = models
        return models
    }

    /// Replaces the server in use (see ``useServer(_:)``).
    func setServer(_ inUse: ServerInUse) { server.withLock { $0 = inUse } }

    /// Forgets the cached model list (after a load or unload).
    public func invalidateModels() { cachedModels = nil }

    /// `submit` for a face (or a test) that asks nothing: `turn` as it is, in a fresh server context when `freshContext`
    /// asks for one (with `recap`, starting with a recap of the earlier turns), else in the context the conversation has;
    /// returns the saved reply, or throws what refused the turn (`TurnOutcome.savedReply()`). `opened` is as for
    /// `submit`: a turn not sent removes the conversation it made, and puts back what its overrides changed.
    public func send(
        _ turn: Turn, in conversationId: String, freshContext: Bool = false, recap: Bool = false,
        opened: OpenedConversation? = nil,
        display: @escaping ReplyObserver,
        replyCreated: (@Sendable (String) async -> Void)? = nil
    ) async throws -> SavedReply {
        let submission = TurnSubmission(
            text: turn.text, images: turn.images, context: turn.context,
            serverContext: freshContext ? recap ? .recap : .empty : .keep)
        return try await submit(
            submission, in: conversationId, opened: opened,
            display: display, replyCreated: replyCreated
        ).savedReply()
    }

    /// `send`, by the conversation's writer (``writerLock(_:)`` is held), the context items already checked.
    ///
    /// The turn is saved only once the server accepted the request (see `stream`), so a send that fails before any
    /// reply leaves the library as it was. With `answeringUnanswered`, a turn with no images or items whose text is the
    /// branch's unanswered last turn (left by an older llmster, whose failed sends stayed in the library) answers that
    /// turn rather than repeating it.
    func sendAsWriter(
        _ turn: Turn, in conversationId: String, freshContext: Bool, recap: Bool, answeringUnanswered: Bool = false,
        stopReason: @escaping @Sendable () -> String? = { nil },
        display: @escaping ReplyObserver, replyCreated: (@Sendable (String) async -> Void)?
    ) async throws -> SavedReply {
        let prepared = try await prepare(conversationId, images: !turn.images.isEmpty, freshContext: freshContext)
        let waiting =
            answeringUnanswered && turn.images.isEmpty && turn.context.isEmpty
            ? try storage({ try library.trailingUnansweredMessage(conversationId: conversationId) })
            : nil
        let answersWaiting = waiting?.text == turn.text
        let recapped =
            freshContext && recap
            ? try await self.recap(
                conversationId: conversationId, excludingLastTurn: answersWaiting, model: prepared.model,
                reference: prepared.modelReference)
            : nil
        return try await stream(
            turn, prepared, recap: recapped, savingTurn: !answersWaiting, stopReason: stopReason,
            display: display, replyCreated: replyCreated)
    }

    /// Saves `turn` as the conversation's next user message, with its images and context items as attachments, and
    /// titles an untitled conversation by it.
    private func saveTurn(_ turn: Turn, in conversation: Conversation) throws -> Message {
        try storage {
            let message = try library.appendMessage(
                conversationId: conversation.id, role: .user, MessageContent(text: turn.text))
            for image in turn.images {
                _ = try library.addAttachment(
                    messageId: message.id, name: image.name, mimeType: image.mimeType, bytes: image.bytes)
            }
            for item in turn.context {
                _ = try library.addAttachment(
                    messageId: message.id, name: item.name, mimeType: item.mimeType, bytes: Array(item.text.utf8))
            }
            if conversation.title.isEmpty {
                // A message of context items alone is titled by their names (a file's without its directory).
                let named =
                    turn.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
                    ? turn.context.map { $0.source == .file ? ($0.name as NSString).lastPathComponent : $0.name }
                        .joined(separator: ", ")
                    : turn.text
                try library.rename(conversationId: conversation.id, to: Self.title(from: named))
            }
            return message
        }
    }

    /// Streams a new reply to `turn`, already saved as the last turn of the current branch, from the
    /// conversation's continuation as the library holds it.
    func answer(
        _ turn: Turn, in conversationId: String, freshContext: Bool, recap: Bool = false,
        display: @escaping ReplyObserver,
        replyCreated: (@Sendable (String) async -> Void)?
    ) async throws -> SavedReply {
        let prepared = try await prepare(conversationId, images: !turn.images.isEmpty, freshContext: freshContext)
        let recapped =
            freshContext && recap
            ? try await self.recap(
                conversationId: conversationId, excludingLastTurn: true, model: prepared.model,
                reference: prepared.modelReference)
            : nil
        return try await stream(turn, prepared, recap: recapped, display: display, replyCreated: replyCreated)
    }

    /// Checks the conversation's model (the `EffectiveModel` rule) and settings against the server before anything is saved or sent.
    ///
    /// A fresh context is prepared in memory only: the library drops the continuation when the server accepted the
    /// request (`stream`), so a send that fails keeps the context the conversation had.
    private func prepare(_ conversationId: String, images: Bool, freshContext: Bool) async throws -> Prepared {
        var conversation = try existingConversation(conversationId)
        try followServer(of: conversation)
        let server = self.server.withLock { $0 }
        if freshContext {
            conversation.serverURL = nil
            conversation.lastResponseId = nil
        }
        // This request starts a context, so it carries the saved prompt.
        let startsContext = conversation.lastResponseId == nil
        if startsContext { conversation.needsFreshContext = false }
        let models = try await serverCall { try await self.models() }
        guard
            let effective = EffectiveModel.resolve(
                conversation: conversation, pending: nil,
                defaultModel: configuration.defaultModelKey, models: models)
        else {
            throw ChatError.noModel
        }
        guard let model = effective.model else { throw models.notDownloaded(effective.reference) }
        let key = effective.reference
        guard model.canChat else { throw ChatError.notAChatModel(key) }
        if images, model.capabilities?.vision != true { throw ChatError.visionUnsupported(key) }
        // A server that lists reasoning for no model predates that field: any value goes, and it decides.
        if let reasoning = conversation.settings.reasoning, let allowed = model.reasoningOptions(in: models),
            !allowed.contains(reasoning)
        {
            throw ChatError.reasoningNotAllowed(value: reasoning, model: key, allowed: allowed)
        }
        if conversation.modelKey == nil {
            conversation.modelKey = key
            // The model alone: this copy may hold a fresh context's dropped continuation, which the library drops
            // only once the server accepts the request.
            try storage { try library.setModelKey(conversationId: conversationId, modelKey: key) }
        }
        return Prepared(
            conversation: conversation, model: model, modelReference: key,
            contextLength: effective.contextLength(
                settings: conversation.settings, configured: configuration.contextLength),
            integrations: try requestIntegrations(conversation.settings.integrations ?? []), server: server,
            startsContext: startsContext)
    }

    /// A conversation, its model and its integrations, checked and ready to send.
    private struct Prepared {
        let conversation: Conversation
        let model: Model
        /// What the request names: the conversation's instance id (`key:2`) when it chose one, else the model key.
        let modelReference: String
        /// The context of the instance expected to answer, when known.
        let contextLength: Int?
        let integrations: [Integration]
        /// The server the request goes to, as it was when the send was prepared.
        let server: ServerInUse
        /// Whether the request starts a server context: once accepted, the library drops the old continuation and
        /// the saved prompt no longer waits for a fresh context.
        let startsContext: Bool
    }

    /// The request entries for the integrations a conversation enabled, with their secret headers.
    private func requestIntegrations(_ names: [String]) throws -> [Integration] {
        guard !names.isEmpty else { return [] }
        let headers: [String: [String: String]]
        do { headers = try configuration.credentialsFile.map(Credentials.integrationHeaders(file:)) ?? [:] } catch {
            throw ChatError.credentials(error)
        }
        return try names.map { name in
            guard let setting = configuration.integrations[name] else {
                throw ChatError.unknownIntegration(name, configured: configuration.integrations.keys.sorted())
            }
            return setting.requestIntegration(headers: headers[name])
        }
    }

    /// Sends the request and streams its reply. Once the server accepted the request, and only then, the conversation
    /// is brought up to date: a context it starts replaces the old continuation, and with `savingTurn` the turn is
    /// saved; then the reply, as it streams. After that nothing is thrown: a reply the library can no longer take is
    /// still the turn's outcome, incomplete, saved as far as it fits.
    private func stream(
        _ turn: Turn, _ prepared: Prepared, recap: Recap? = nil, savingTurn: Bool = false,
        stopReason: @escaping @Sendable () -> String? = { nil },
        display: @escaping ReplyObserver,
        replyCreated: (@Sendable (String) async -> Void)?
    ) async throws -> SavedReply {
        let conversation = prepared.conversation
        try requireServerContextHere(conversation)
        let sent =
            recap.map { Turn(text: $0.input(before: turn.text), images: turn.images, context: turn.context) } ?? turn
        let server = prepared.server.configuration
        let request = RequestBuilder.request(
            for: sent, conversation: conversation, model: prepared.modelReference,
            server: server.server, integrations: prepared.integrations)
        let events: AsyncThrowingStream<ChatEvent, any Error>
        do {
            events = try await prepared.server.client.streamChat(request)
        } catch let error as LMStudioError {
            if request.previousResponseId != nil, error.isUnknownResponseId {
                throw ChatError.continuationLost(conversationId: conversation.id)
            }
            if let index = error.unknownIntegrationFieldIndex {
                let names = conversation.settings.integrations ?? []
                throw ChatError.integrationFieldUnknown(
                    error.description, integration: names.indices.contains(index) ? names[index] : nil)
            }
            if !prepared.integrations.isEmpty, error.concernsIntegrations {
                throw ChatError.integrationRefused(error.description)
            }
            throw ChatError.server(error)
        } catch is CancellationError {
            throw ChatError.server(.cancelled)
        }
        if prepared.startsContext {
            try storage {
                try library.setContinuation(conversationId: conversation.id, serverURL: nil, responseId: nil)
                if var current = try library.conversation(id: conversation.id), current.needsFreshContext {
                    current.needsFreshContext = false
                    try library.updateConversation(current)
                }
            }
        }
        let saved = savingTurn ? try saveTurn(turn, in: conversation) : nil
        let reply: Message
        do {
            reply = try storage {
                try library.appendMessage(
                    conversationId: conversation.id, role: .assistant, MessageContent(text: "", status: .streaming))
            }
        } catch {
            if let saved { try? storage { try library.removeUnanswered(messageId: saved.id) } }
            throw error
        }
        await replyCreated?(reply.id)
        let coalescer = DisplayCoalescer(
            interval: .milliseconds(configuration.displayIntervalMilliseconds), clock: clock)
        // Partial text is saved every `saveInterval` even while the server is silent, so a killed
        // process loses at most that much (more when a server outruns the saves); each save appends only the text
        // that arrived since the last, at most `ReplyPersistence.Arrived.bytesPerSave` of it, copied out so the
        // growing answer is never shared.
        let saver = Task { [clock, saveInterval] in
            var persistence = ReplyPersistence(messageId: reply.id)
            var next = clock.now() + saveInterval
            while (try? await clock.sleep(until: next)) != nil {
                let arrived = await coalescer.arrived(after: persistence.saved)
                if let openLibrary = self.openLibrary { persistence.saveArrived(arrived, to: openLibrary) }
                next = clock.now() + saveInterval
            }
            return persistence
        }
        // The presenter is a child task: cancelling the reply (Ctrl-C, SIGTERM, an editor's cancel) reaches it
        // whatever the ending, so a display drawing a backlog stops at once; the reply is saved before it is awaited.
        return try await withThrowingTaskGroup(of: Void.self, returning: SavedReply.self) { group in
            group.addTask { await Self.present(coalescer, to: display) }
            var (ending, savedBeforeEnd) = await Self.pump(events, into: coalescer) {
                await self.saveStreamedVersion(of: coalescer, saver: saver)
            }
            saver.cancel()
            let persistence = if let savedBeforeEnd { savedBeforeEnd } else { await saver.value }
            if Task.isCancelled, ending != .completed { ending = .cancelled }
            // The presenter still hands on every update of a cancelled reply, but in a cancelled task, so a display
            // skips drawing the backlog (the text is saved) and the prompt comes back at once.
            if ending == .cancelled { group.cancelAll() }
            let state = await coalescer.close()
            let (status, message) = Self.status(
                of: state, ending: ending, stopReason: stopReason(), contextLength: prepared.contextLength)
            await coalescer.finish(ReplyEnd(ending: ending, status: status, errorMessage: message, state: state))
            let result: SavedReply
            do {
                var streamedVersionId: String?
                try storage {
                    // What streamed is saved (`saveStreamedVersion`): a final event that changed it leaves it as an alternative.
                    streamedVersionId = try persistence.keepStreamedVersion(of: state, in: library)
                    try persistence.saveFinal(state, status: status, error: message, to: library)
                    if let responseId = state.responseId {
                        try library.setContinuation(
                            conversationId: conversation.id, serverURL: server.server, responseId: responseId)
                        try library.setServerProfile(conversationId: conversation.id, profile: server.serverProfile)
                    }
                }
                result = SavedReply(
                    messageId: reply.id, conversationId: conversation.id, status: status, state: state,
                    errorMessage: message,
                    streamedVersionId: streamedVersionId, wasCancelled: ending == .cancelled)
            } catch {
                let kept = openLibrary.flatMap { persistence.saveWhatFits(state, to: $0) }
                result = SavedReply(
                    messageId: reply.id, conversationId: conversation.id, status: .incomplete, state: state,
                    errorMessage: kept ?? String(describing: error), wasCancelled: ending == .cancelled)
            }
            try await group.waitForAll()
            return result
        }
    }

    /// Feeds the reply's events to the coalescer until the stream ends, off the session's thread (see `LibraryExecutor`):
    /// the hot loop hops only between the reader and the coalescer, never to the library's thread, which it reaches only
    /// through `saveStreamedVersion` (at most once: before a final event that replaces what streamed is applied).
    @concurrent
    private static func pump(
        _ events: AsyncThrowingStream<ChatEvent, any Error>, into coalescer: DisplayCoalescer,
        saveStreamedVersion: @Sendable () async -> ReplyPersistence
    ) async -> (ReplyEnding, ReplyPersistence?) {
        var ending = ReplyEnding.interrupted(endedEarly)
        var savedBeforeEnd: ReplyPersistence?
        do {
            for try await event in events {
                if case .chatEnd(let result) = event, savedBeforeEnd == nil, await !coalescer.keepsStreamed(result) {
                    savedBeforeEnd = await saveStreamedVersion()
                }
                await coalescer.apply(event)
                if case .chatEnd = event { ending = .completed }
            }
        } catch is CancellationError {
            ending = .cancelled
        } catch let error as LMStudioError {
            ending = error == .cancelled ? .cancelled : .interrupted(error.description)
        } catch {
            ending = .interrupted(String(describing: error))
        }
        return (ending, savedBeforeEnd)
    }

    /// Hands the coalescer's batches to `display` until the end has been handed out.
    private static func present(_ coalescer: DisplayCoalescer, to display: ReplyObserver) async {
        while let batch = await coalescer.next() {
            for update in batch { await display(update) }
        }
    }

    /// Stops the periodic saves and saves everything that streamed, before a `chat.end` that replaces some of it is
    /// applied: the library then holds the streamed version whole to keep as an alternative.
    private func saveStreamedVersion(of coalescer: DisplayCoalescer, saver: Task<ReplyPersistence, Never>) async
        -> ReplyPersistence
    {
        saver.cancel()
        var persistence = await saver.value
        let state = await coalescer.state
        if let openLibrary { persistence.saveArrived(state, to: openLibrary) }
        return persistence
    }

    /// Why a reply is incomplete when its stream ended without `chat.end` and nothing else says why.
    private static let endedEarly = "The stream ended before the reply was complete."

    /// A reply is complete only with `chat.end`, no `error` event and no event that could not be read.
    private static func status(of state: ReplyState, ending: ReplyEnding, stopReason: String?, contextLength: Int?) -> (
        MessageStatus, String?
    ) {
        if let serverError = state.serverError { return (.error, serverError) }
        // An unreadable event explains a stream that ended without a readable `chat.end` (an unreadable one).
        if ending != .cancelled, let unreadable = state.firstUnreadableEvent {
            let count = state.unreadableEventCount
            let cause = if case .interrupted(let reason) = ending, reason != endedEarly { reason + " " } else { "" }
            return (
                .incomplete,
                cause
                    + "The server sent \(count) event\(count == 1 ? "" : "s") llmster could not read; the reply may be "
                    + "missing text (\(unreadable))."
            )
        }
        // An empty answer whose prompt filled the context: GGUF models were seen to answer an overflow so
        // (lmstudio-bug-tracker#2339).
        if ending == .completed, state.answer.allSatisfy(\.isWhitespace), state.toolCalls.isEmpty,
            let limit = contextLength,
            let input = state.stats?.inputTokens, input.saturatingMultiply(100) >= limit.saturatingMultiply(98)
        {
            return (
                .incomplete,
                "The reply is empty: the prompt filled the model's context (\(Figures.grouped(input)) of \(Figures.grouped(limit)) "
                    + "tokens), leaving no room for an answer. Reload the model with a larger context (llmster load MODEL --context-length N), "
                    + "or start a fresh context with a recap."
            )
        }
        switch ending {
        case .completed: return (.complete, nil)
        case .cancelled: return (.incomplete, (stopReason ?? "Cancelled") + "; the text received so far is kept.")
        case .interrupted(let reason): return (.incomplete, reason)
        }
    }

    /// Runs library work, reporting a library failure as `ChatError.storage` with the `LibraryError` inside.
    func storage<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as LibraryError {
            throw ChatError.storage(error)
        }
    }

    /// Runs server work, reporting a server failure as `ChatError.server`.
    func serverCall<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as LMStudioError { throw ChatError.server(error) }
    }

    /// A conversation title from its first message: the first line after any attached files (fenced blocks, each
    /// perhaps under a `NAME:` or `File: NAME` line, as the editors attach them), at most 60 characters.
    public static func title(from text: String) -> String {
        let lines = text.split(whereSeparator: \.isNewline).map(String.init)
        let firstLine = linesAfterAttachedBlocks(lines).first ?? lines.first ?? ""
        let trimmed = firstLine.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return Conversation.untitled }
        return trimmed.count > 60 ? String(trimmed.prefix(59)) + "…" : trimmed
    }

    /// `lines` without the fenced blocks (and the one-line name above each) they start with.
    private static func linesAfterAttachedBlocks(_ lines: [String]) -> ArraySlice<String> {
        func fence(_ line: String) -> Substring? {
            let ticks = line.prefix { $0 == "`" }
            return ticks.count >= 3 ? ticks : nil
        }
        var rest = lines[...]
        while let first = rest.first {
            let named =
                fence(first) == nil && rest.count > 1 && fence(rest[rest.startIndex + 1]) != nil
                && (first.hasSuffix(":") || first.hasPrefix("File: "))
            let opening = named ? rest.startIndex + 1 : rest.startIndex
            guard let ticks = fence(rest[opening]) else { break }
            guard
                let closing = rest[(opening + 1)...].firstIndex(where: {
                    $0.trimmingCharacters(in: .whitespaces) == ticks
                })
            else { break }
            rest = rest[(closing + 1)...]
        }
        return rest
    }
}

/// Receives a reply's updates in order as it streams, the end last; every face (REPL, `ask`, `rpc`, `voice`) passes one.
public typealias ReplyObserver = @Sendable (ReplyUpdate) async -> Void

/// A reply as saved: its message id, status and full state.
public struct SavedReply: Sendable {
    public let messageId: String
    public let conversationId: String
    public let status: MessageStatus
    public let state: ReplyState
    /// Why the reply is not complete, when it is not.
    public let errorMessage: String?
    /// When the final event rewrote, shortened or dropped what streamed: the alternative keeping the streamed version.
    public var streamedVersionId: String? = nil
    /// Whether the reply stopped because it was cancelled (Ctrl-C, an editor's cancel, closed output), not by the server.
    public var wasCancelled = false
    /// Whether the turn started a fresh server context (set by `ChatSession.submit`).
    public var startedFreshContext = false

    /// What a cancel did not stop, when it came while the server processed the prompt: LM Studio notices a closed
    /// connection only once the prompt is processed (lmstudio-ai/lms#194), so the model stays busy until then.
    public var stopNotice: String? {
        guard wasCancelled, case .processingPrompt(let progress) = state.stage else { return nil }
        return
            "Stopped while the server was processing the prompt (\(Int(progress * 100))%): LM Studio finishes processing it "
            + "before it stops, so the model stays busy for a while."
    }
}
