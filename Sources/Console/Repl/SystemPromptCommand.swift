import Chat
import Foundation
import LMStudio
import Library
import Markdown
import SystemSupport
import TerminalMarkdown

/// `/system`: shows, sets or clears the system prompt through `ChatSession.setSystemPrompt`.
///
/// LM Studio reads `system_prompt` only on a server context's first request, so a change after the
/// first turn offers a fresh context; without one the prompt is saved but not yet in effect, and the REPL says so.
@ReplActor enum SystemPromptCommand {
    /// Bare: show the prompt; `clear`: clear it; else set it to `text`.
    static func run(_ text: String?, repl: ReplSession) async throws {
        guard let text else {
            let prompt = await repl.currentConversation()?.systemPrompt
            repl.output.line(prompt.map { "\($0)" } ?? "This conversation has no system prompt.")
            return
        }
        let value = text == "clear" ? nil : text
        let id = try await repl.ensureConversation()
        let effect = try await repl.chat.setSystemPrompt(value, conversationId: id)
        if effect == .unchanged {
            repl.output.line("The system prompt is already that.")
            return
        }
        await report(effect, what: value == nil ? "System prompt cleared" : "System prompt set", repl: repl)
    }

    /// `/preset NAME` (and `--preset`): the preset's model under the load policy, then its prompt and settings
    /// through `ChatSession.applyPreset`; before the first message the preset goes with the conversation's creation
    /// (`ConversationOverrides.preset`). `sendsText`: the template fills text sent right after (`/preset NAME TEXT`).
    static func applyPreset(_ name: String, repl: ReplSession, sendsText: Bool = false) async throws {
        let preset: Preset
        do { preset = try repl.chat.preset(named: name) } catch let error as ChatError { throw UsageError("\(error)") }
        if let model = preset.model { try await ModelSwitch.choose(model, repl: repl) }
        if preset.template != nil {
            repl.templatePreset = preset
            repl.output.line(
                "Preset \(name)'s template fills \(sendsText ? "this" : "your next") message ("
                    + "\(Preset.slots.filter(preset.hasSlot).map { "{{\($0)}}" }.joined(separator: ", "))).")
        }
        guard let id = repl.conversationId else {
            repl.pendingPreset = name
            repl.output.line("Preset \(name) applies to this conversation from its first message.")
            return
        }
        let applied: PresetApplication
        do { applied = try await repl.chat.applyPreset(name, conversationId: id) } catch ChatError.invalidSetting(
            let error)
        {
            throw UsageError("preset \(name): \(error)")
        }
        await report(applied.systemPrompt ?? .unchanged, what: "Preset \(name) applied", repl: repl)
    }

    /// Says how a changed prompt takes effect; after the first turn, offers a fresh server context.
    private static func report(_ effect: SystemPromptEffect, what: String, repl: ReplSession) async {
        guard effect == .needsFreshContext else {
            repl.output.line("\(what).")
            return
        }
        await offerFreshContext(after: what, repl: repl)
    }

    /// Offers a fresh server context to a system prompt that waits for one: after `what` (`/system`, `/preset`), or,
    /// when nil, on opening a conversation whose prompt changed since its context began, where the REPL only says so
    /// (keeping the context) when no terminal can answer, lest it take the first piped message as the answer.
    static func offerFreshContext(after what: String?, repl: ReplSession) async {
        repl.offersFreshContext = false
        if what == nil { repl.output.line("This conversation's system prompt changed after its server context began.") }
        repl.output.line(
            "The server keeps this conversation's context with the old system prompt; a change takes effect only with a fresh server context (the model will not remember earlier turns)."
        )
        if what != nil || repl.editor != nil, await repl.confirm("Start a fresh server context with the next message?")
        {
            repl.serverContextAnswer = .empty
            repl.output.line("\(what.map { $0 + "; the" } ?? "The") next message starts a fresh server context.")
        } else {
            repl.serverContextAnswer = .keep
            repl.output.line(
                "Saved, not yet in effect: the prompt applies when this conversation next starts a fresh server context."
            )
        }
    }
}
