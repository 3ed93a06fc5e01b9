import Chat
import Foundation
import LMStudio
import Library
import Markdown
import SystemSupport
import TerminalMarkdown

/// The prompt and what it shows: the model in effect, the context meter, the conversation's folder and title; and
/// the server's models it is measured against, refreshed in the background.
extension ReplSession {
    /// The conversation's model and state, the context estimate, folder and title; then `›`.
    ///
    /// Rendered from the cached model list (`serverModels`) and the library's record of this one
    /// conversation: no server request, so a server that drops connections cannot stall the prompt.
    func promptText() async -> String {
        if assembler.isContinuing { return "… " }
        guard editor != nil else { return "" }
        let conversation = await currentConversation()
        let effective = effectiveModel(conversation: conversation)
        completions.update(reasoningOptions: effective?.model?.reasoningSuggestions(in: serverModels ?? []) ?? [])
        var parts: [String] = []
        if let effective {
            // The server answered, refusing the token: it is not unreachable.
            let state =
                effective.state == .serverUnreachable && modelsFailure == .authentication
                ? "token refused" : effective.state.rawValue
            parts.append("\(UntrustedText.sanitize(effective.reference)) (\(state))")
        } else {
            parts.append("no model")
        }
        let meter = await contextMeter(conversation: conversation, model: effective)
        parts.append(meter.label(draft: ContextItem.input(pendingContext, message: "")))
        if !pendingContext.isEmpty { parts.append("+\(pendingContext.count) context") }
        if !attachments.isEmpty { parts.append("+\(attachments.count) image\(attachments.count == 1 ? "" : "s")") }
        if let conversation {
            let folder = await folderPath(conversation.folderId)
            // One `/new` made reads as the chat llmster starts with, until it has a title or a reply.
            let title =
                conversation.title.isEmpty && conversation.lastResponseId == nil
                ? "new chat" : conversation.displayTitle
            parts.append(UntrustedText.oneLine((folder.map { $0 + "/" } ?? "") + title))
        } else {
            parts.append("new chat")
        }
        let capabilities = context.terminal(fd: 1)
        let width = capabilities.isTTY ? max(capabilities.width, 20) : 80
        let info = Self.fitted(parts, to: width - 3, fit: capabilities.textFit)
        if capabilities.noColor || !capabilities.allowsStyles { return "[\(info)]\n› " }
        return "\u{1}\u{1B}[2m\u{2}[\(info)]\u{1}\u{1B}[0m\u{2}\n› "
    }

    /// The prompt's `parts` joined by " · " within `width` columns: the last part (the title, the least needed) is cut
    /// first, then left out, and only then the rest, so a narrow terminal keeps the model and the context figure whole.
    nonisolated static func fitted(_ parts: [String], to width: Int, fit: TextFit) -> String {
        let whole = parts.joined(separator: " · ")
        guard fit.columns(whole) > width, parts.count > 1 else { return fit.cut(whole, to: width) }
        let head = parts.dropLast().joined(separator: " · ")
        let room = width - fit.columns(head + " · ")
        if room >= 4 { return head + " · " + fit.cut(parts[parts.count - 1], to: room) }
        return fit.cut(head, to: width)
    }

    /// The conversation's model by the one rule (`EffectiveModel`), against the cached model list.
    func effectiveModel(conversation: Conversation?) -> EffectiveModel? {
        EffectiveModel.resolve(
            conversation: conversation, pending: pendingModel,
            defaultModel: context.configuration.defaultModelKey, models: serverModels)
    }

    /// The effective model of the current conversation (see `effectiveModel(conversation:)`).
    func effectiveModel() async -> EffectiveModel? {
        effectiveModel(conversation: await currentConversation())
    }

    /// Asks the server for its models now (after a command that changed them) and updates the cache and Tab
    /// completion; with `reportingFailure` (at start-up) an unreachable or refusing server is
    /// said at once, with what to do, rather than after the first message.
    func refreshModels(reportingFailure: Bool = false) async {
        do {
            serverModels = try await chat.models(refresh: true)
            modelsFailure = nil
        } catch {
            serverModels = nil
            modelsFailure = ErrorCategory(of: error)
            if reportingFailure { context.warn(App.explanation(of: error, context: context)) }
        }
        if let serverModels { completions.update(models: serverModels) }
    }

    /// Refreshes the model list in the background after a reply or a command; a change while a refresh runs
    /// queues one more.
    func refreshInBackground() {
        guard !refreshing else {
            refreshAgain = true
            return
        }
        refreshing = true
        Task {
            await refreshModels()
            refreshing = false
            if refreshAgain {
                refreshAgain = false
                refreshInBackground()
            }
        }
    }

    /// Offers the library's current folders and conversation titles to Tab (after every command or message, since
    /// any of them may have changed).
    func refreshLibraryCompletions() async {
        guard editor != nil,
            let (folders, titles) = try? await chat.withLibrary({ library in
                (
                    try library.folderPaths().values.sorted(),
                    try library.conversations(limit: 200).map(\.title).filter { !$0.isEmpty }
                )
            })
        else { return }
        completions.update(folders: folders, titles: titles)
    }

    /// The context estimate for `conversation` with `model` (`ChatSession.contextMeter`).
    func contextMeter(conversation: Conversation?, model: EffectiveModel?) async -> ContextMeter {
        (try? await chat.contextMeter(conversation: conversation, model: model))
            ?? ContextMeter(usedTokens: 0, contextLength: nil)
    }

    /// The current conversation, fresh from the library.
    func currentConversation() async -> Conversation? {
        guard let id = conversationId else { return nil }
        return try? await chat.withLibrary { try $0.conversation(id: id) }
    }

    /// `Work/Research` for a folder id.
    func folderPath(_ id: Int64?) async -> String? {
        guard let id else { return nil }
        return try? await chat.withLibrary { try $0.folderPath(id: id) }
    }
}
