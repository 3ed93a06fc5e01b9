import Chat
import Foundation
import LMStudio
import Library
import Synchronization

/// `chat/send`: sends a turn through `ChatSession`, streams `chat/event` notifications, answers with the saved reply.
enum ChatMethods {
    static func register(in registry: inout MethodRegistry) {
        registry.register("chat/send") { context, params in
            try await send(context, params)
        }
        registry.register("chat/withdraw") { context, params in
            try await withdraw(context, params)
        }
    }

    /// `freshContext`: true or "empty" (a fresh server context), "recap" (a fresh one that starts with a recap of the
    /// earlier turns), false or absent (none).
    private static func freshContext(_ params: Params) throws -> (fresh: Bool, recap: Bool) {
        if let text = (try? params.optionalString("freshContext")) ?? nil {
            switch text {
            case "empty": return (true, false)
            case "recap": return (true, true)
            default:
                throw RPCError.invalidParams("parameter \"freshContext\" must be true, false, \"empty\" or \"recap\"")
            }
        }
        return (try params.bool("freshContext"), false)
    }

    /// `chat/withdraw`: an editor's undo of a send — the conversation's last exchange leaves the library too.
    private static func withdraw(_ context: RequestContext, _ params: Params) async throws -> JSONValue {
        let session = context.session
        let conversationId = try await session.withConversation(try params.string("conversationId")) {
            conversation, _ in conversation.id
        }
        let branch = try await session.withdrawLastExchange(try params.string("messageId"), in: conversationId)
        let messages = try await session.withLibrary { library in
            try LibraryMethods.branchJSON(branch, library: library)
        }
        return .object([
            "conversationId": .string(conversationId),
            "messages": messages,
            "contextMeter": LibraryMethods.meterJSON(try await session.contextMeter(conversationId: conversationId))
        ])
    }

    private static func send(_ context: RequestContext, _ params: Params) async throws -> JSONValue {
        let retry = try params.bool("retry")
        let text = try params.optionalString("text")
        let (askedFreshContext, recap) = try freshContext(params)
        let images = try (params.optionalStrings("images") ?? []).map { path in
            do { return try ImageInput.load(path: path) } catch { throw RPCError.invalidParams("\(error)") }
        }
        let reference = try params.optionalString("conversationId")
        let presetName = try params.optionalString("preset")
        let preset = try presetName.map { try context.session.preset(named: $0) }
        let editing = try params.bool("edit")
        let contextItems =
            retry || editing ? [] : try await ContextMethods.items(for: reference, params, session: context.session)
        let overrides = ConversationOverrides(
            model: try params.optionalString("model"),
            systemPrompt: try params.optionalString("systemPrompt"),
            reasoning: try params.optionalString("reasoning"),
            folder: try params.optionalInteger("folderId").map { .id(Int64($0)) },
            integrations: try params.optionalStrings("integrations"), preset: presetName)
        // A preset's template is filled with `text` ({{input}}) and `stdin` ({{stdin}}), as `ask` fills it.
        let stdin = try params.optionalString("stdin")
        if !retry, text?.isEmpty ?? true, contextItems.isEmpty, preset?.template == nil || stdin == nil {
            throw RPCError.invalidParams("missing string parameter \"text\" (or retry: true, or context items)")
        }
        // `server`: the session talks to this profile (or URL) from now on, as `/server` does.
        if let server = try params.optionalString("server") { try await context.session.useServer(server) }
        var submission = TurnSubmission(
            text: text ?? "", images: images, context: contextItems, template: preset, stdin: stdin)
        if retry { submission = .retry() }
        if editing { submission = .edit(submission.message) }
        submission.lastMessageId = try params.optionalString("lastMessageId")
        submission.sendsPastOverflow = try params.bool("sendPastOverflow")
        if let choice = try params.optionalString("onOverflow") {
            guard let known = OverflowChoice(rawValue: choice) else {
                throw RPCError.invalidParams("parameter \"onOverflow\" must be \"grow\", \"recap\" or \"send\"")
            }
            submission.overflowChoice = known
        }
        if askedFreshContext { submission.serverContext = recap ? .recap : .empty }
        // A changed system prompt reaches the model only in a fresh context: this message starts one, as in `ask`.
        submission.changedPromptStartsFresh = true
        let opened = try await context.session.openConversation(
            reference.map(ConversationReference.named) ?? .new, overrides: overrides)
        let conversationId = opened.conversation.id
        let enabled = opened.enabledIntegrations

        let stream = EventStream(context: context, conversationId: conversationId)
        let display: ReplyObserver = { stream.publish($0) }
        let replyCreated: @Sendable (String) async -> Void = { stream.start(messageId: $0) }
        // The load policy's load, before the reply exists, reads as the stage a just-in-time load would show.
        let server = context.server
        let outcome = await context.session.submit(
            submission, in: conversationId, opened: opened,
            progress: { step in
                switch step {
                case .model(.loading(let key)):
                    stream.publish(.stageChanged(.loadingModel(instanceId: key, progress: 0)))
                case .model(.loaded(let load)):
                    stream.publish(.stageChanged(.loadingModel(instanceId: load.instanceId, progress: 1)))
                case .model(.unloaded), .startsFreshContext: break
                }
            }, stopReason: { server.stopReason }, display: display, replyCreated: replyCreated)
        guard let reply = outcome.reply else {
            throw notSent(outcome, conversationId: opened.isNew ? nil : conversationId)
        }
        if !retry, !editing {
            await ContextMethods.sent(to: reference == nil ? nil : conversationId, session: context.session)
        }
        let saved = try await context.session.withLibrary { library -> JSONValue in
            guard let message = try library.message(id: reply.messageId) else { return .null }
            return try LibraryMethods.messageJSON(message, toolCalls: try library.toolCalls(messageId: message.id))
        }
        let meter = LibraryMethods.meterJSON(try await context.session.contextMeter(conversationId: conversationId))
        let errorKind = reply.state.errors.first.map { JSONValue.string(ReplyErrorKind($0).rawValue) } ?? .null
        return IntegrationMethods.withNotice(
            .object([
                "conversationId": .string(conversationId),
                "message": saved,
                "status": .string(reply.status.rawValue),
                "outcome": .string(reply.wasCancelled ? "cancelled" : "sent"),
                "cancelled": .bool(reply.wasCancelled),
                "stopNotice": reply.stopNotice.map(JSONValue.string) ?? .null,
                "errorKind": errorKind,
                "freshContext": .bool(reply.startedFreshContext),
                "recap": .bool(reply.startedFreshContext && recap),
                "server": .string(ServerURL.redactingPasswords(in: context.session.configuration.server)),
                "serverProfile": context.session.configuration.serverProfile.map(JSONValue.string) ?? .null,
                "contextMeter": meter
            ]), added: enabled)
    }
}

extension ChatMethods {
    /// The error a turn that was not sent answers with: its usual kind, and in `data` the `outcome` (`needs_decision`,
    /// `refused`, `failed`), the `decision` it waits for, and what was `returned` to the client (nothing was saved).
    static func notSent(_ outcome: TurnOutcome, conversationId: String?) -> RPCError {
        var error: RPCError
        var details: [String: JSONValue] = [:]
        switch outcome {
        case .needsDecision(let decision, _):
            details["outcome"] = .string("needs_decision")
            switch decision {
            case .chooseModel(let candidates):
                error = RPCError(.modelNotFound, message: decision.description)
                details["decision"] = .object([
                    "type": .string("choose_model"), "candidates": .array(candidates.map(JSONValue.string))
                ])
            case .overflow(let overflow):
                error = RPCError(
                    code: RPCError.contextOverflowCode, message: decision.description, kind: "context_overflow",
                    category: .contextOverflow)
                details["decision"] = .object([
                    "type": .string("overflow"), "label": .string(overflow.label),
                    "items": .array(overflow.items.map(JSONValue.string)),
                    "exceeds": .bool(overflow.exceeds), "model": .string(overflow.model),
                    "growTo": overflow.growTo.map { .integer($0) } ?? .null,
                    "recap": overflow.recap.map { .string($0.summary) } ?? .null,
                    "choices": .array(overflow.choices.map { .string($0.rawValue) })
                ])
            case .freshContext(let reason, let recap):
                error =
                    switch reason {
                    case .continuationElsewhere(let cause): RPCError.from(cause)
                    default: RPCError(.continuationLost, message: decision.description)
                    }
                let why: String =
                    switch reason {
                    case .systemPromptChanged: "system_prompt_changed"
                    case .continuationLost: "continuation_lost"
                    case .continuationElsewhere: "continuation_elsewhere"
                    }
                details["decision"] = .object([
                    "type": .string("fresh_context"), "reason": .string(why),
                    "recap": recap.map { .string($0.summary) } ?? .null
                ])
            }
        case .refused(let cause, _):
            details["outcome"] = .string("refused")
            error =
                if let cause = cause as? ContextError { ContextMethods.rpcError(cause) } else { RPCError.from(cause) }
        case .failed(let cause, _):
            details["outcome"] = .string("failed")
            error = RPCError.from(cause)
        case .sent, .cancelled:
            return RPCError(.internal, message: "the turn was sent")
        }
        if let returned = outcome.returned {
            let kind =
                switch returned.kind {
                case .message: "message"
                case .retry: "retry"
                case .edit: "edit"
                }
            details["returned"] = .object([
                "kind": .string(kind),
                "text": .string(returned.text),
                "images": .array(returned.images.map { .string($0.name) }),
                "context": .array(returned.context.map(ContextMethods.json))
            ])
        }
        details["conversationId"] = conversationId.map(JSONValue.string) ?? .null
        error.details.merge(details) { $1 }
        return error
    }
}

/// The `chat/event` notifications of one request, numbered by `seq`.
private final class EventStream: Sendable {
    private struct State {
        var messageId: String?
        var tracker = ChatEventTracker()
        var seq = 0
    }

    private let context: RequestContext
    private let conversationId: String
    private let state = Mutex(State())

    init(context: RequestContext, conversationId: String) {
        self.context = context
        self.conversationId = conversationId
    }

    func start(messageId: String) { state.withLock { $0.messageId = messageId } }

    func publish(_ update: ReplyUpdate) {
        let notifications = state.withLock { state -> [JSONValue] in
            state.tracker.events(for: update).map { event in
                var fields = event.fields
                fields["requestId"] = context.id
                fields["conversationId"] = .string(conversationId)
                fields["messageId"] = state.messageId.map(JSONValue.string) ?? .null
                fields["seq"] = .integer(state.seq)
                fields["type"] = .string(event.type)
                state.seq += 1
                return .object(fields)
            }
        }
        for notification in notifications { context.notify("chat/event", notification) }
    }
}
