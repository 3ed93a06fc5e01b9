import Chat
import Foundation
import Library
import LMStudio
import SystemSupport
import TerminalMarkdown

/// `/model` and `/load`: adapters over `ChatSession.selectModel` and `loadModel`, printing each step.
@ReplActor enum ModelSwitch {
    /// Makes `reference` the conversation's model under the load policy (`previous`: see `ChatSession.selectModel`),
    /// printing unloads and the load.
    static func choose(_ reference: String, replacing previous: String? = nil, repl: ReplSession,
                       options: LoadOptions = LoadOptions()) async throws {
        let output = repl.output
        let errors = repl.context.errors
        // The loading line is erased once loaded: only where a line can be rewritten (not in line mode).
        let inPlace = repl.context.terminal(fd: 2).allowsCursorMovement
        let selection: ModelSelection
        do {
            selection = try await repl.chat.selectModel(reference, conversationId: repl.conversationId, pending: repl.pendingModel,
                                                        replacing: previous, options: options) { step in
                switch step {
                case .unloaded(let instance):
                    output.line("Unloaded \(UntrustedText.sanitize(instance)).")
                case .loading(let key):
                    if inPlace { errors.send("Loading \(UntrustedText.sanitize(key)) …") }
                case .loaded(let reply):
                    if inPlace { errors.send("\r\u{1B}[2K") }
                    output.line(loadedLine(reply))
                }
            }
        } catch ChatError.modelNotDownloaded(let key, let suggestion) {
            let hint: SanitizedMessage = suggestion.map { "did you mean \($0)? " } ?? ""
            throw UsageError("\(key) is not downloaded on this server; \(hint)/models lists what is")
        } catch ChatError.notAChatModel(let key) {
            throw UsageError("\(key) is not a chat model")
        }
        if repl.conversationId == nil { repl.pendingModel = selection.model }
        await repl.refreshModels()
        repl.output.line("This conversation now uses \(UntrustedText.sanitize(selection.model)).")
    }

    /// Loads `key` with the conversation's (else the configured) context length, showing elapsed time.
    static func load(_ key: String, repl: ReplSession, options: LoadOptions = LoadOptions()) async throws {
        let chat = repl.chat
        let id = repl.conversationId
        let reply = try await LoadProgress(model: key, stream: repl.context.errors, environment: repl.context.environment).around {
            try await chat.loadModel(key, conversationId: id, options: options)
        }
        await repl.refreshModels()
        repl.output.line(loadedLine(reply))
    }

    /// `/model` without a key: the chat models numbered in the server's order, the current one marked, as an aligned
    /// table; a number picks one (the same numbers as `/model N`), other text narrows the list keeping each row's
    /// number (one match picks it), a slash command leaves the list and runs, Enter alone cancels. Returns the key.
    static func pick(repl: ReplSession) async throws -> String? {
        let all = try await chatModels(repl: repl)
        guard !all.isEmpty else { repl.output.line("The server has no chat models; /download fetches one."); return nil }
        let current = await repl.effectiveModel()?.key
        var shown = Array(all.indices)
        while true {
            var table = TextTable(columns: [
                .init("#", priority: 0), .init("MODEL", minimumWidth: 16, priority: 0), .init("", minimumWidth: 10, priority: 1),
            ])
            let details = repl.completions.badges(for: shown.map { all[$0].key })
            for (row, index) in shown.enumerated() {
                let key = all[index].key
                let badges = details[row].hasPrefix(key) ? String(details[row].dropFirst(key.count)).trimmingCharacters(in: .whitespaces) : ""
                table.append([String(index + 1), key + (key == current ? " (current)" : ""), badges])
            }
            repl.output.send(table.text(width: repl.terminalWidth))
            guard case .line(let answer) = await repl.readLine(prompt: "Model number, or text to narrow the list (Enter cancels): ", draft: "") else {
                return nil
            }
            let typed = answer.trimmingCharacters(in: .whitespaces)
            if typed.isEmpty { return nil }
            if typed.hasPrefix("/") {
                repl.output.line("Left the model list.")
                await repl.runCommand(typed)
                return nil
            }
            if let number = Int(typed) {
                if (1...all.count).contains(number) { return all[number - 1].key }
                repl.output.line("There is no model \(number); pick 1 to \(all.count).")
                continue
            }
            let narrowed = shown.filter { index in
                [all[index].key, all[index].displayName].contains { $0.localizedCaseInsensitiveContains(typed) }
            }
            if narrowed.count == 1 { return all[narrowed[0]].key }
            if narrowed.isEmpty { repl.output.line("No model matches '\(UntrustedText.sanitize(typed))'.") } else { shown = narrowed }
        }
    }

    /// The server's chat models in the order the picker numbers them.
    static func chatModels(repl: ReplSession) async throws -> [Model] {
        try await repl.chat.models(refresh: true).filter(\.canChat)
    }

    /// The key of model number `number` in the picker's list (`/model 2`), or a usage error naming the range.
    static func numbered(_ number: Int, repl: ReplSession) async throws -> String {
        let all = try await chatModels(repl: repl)
        guard (1...max(all.count, 1)).contains(number), !all.isEmpty else {
            throw UsageError(all.isEmpty ? "the server has no chat models" : "there is no model \(number); /model lists 1 to \(all.count)")
        }
        return all[number - 1].key
    }

    /// `Loaded KEY as INSTANCE in 1.2 s.`
    private nonisolated static func loadedLine(_ reply: LoadResponse) -> String {
        LoadOptionArguments.loadedLine(reply)
    }
}

/// `/set`: an adapter over `ChatSession.setSettings` (whose checks every face shares), plus the REPL's own `speak`.
@ReplActor enum SettingsCommand {
    /// Sets `key` to `value` (`default` clears it); a refused value is a usage error with the shared message.
    static func set(_ key: String, to value: String, repl: ReplSession) async throws {
        if key == "speak" {
            guard ["on", "off"].contains(value) else { throw UsageError("speak takes on or off") }
            repl.speaksAnswers = value == "on"
            repl.output.line("Voice answers are \(value) for /voice in this session.")
            return
        }
        let setting: ConversationSetting
        do { setting = try ConversationSetting.named(key) } catch {
            throw UsageError("\(SettingError.unknownKey(key, known: ReplCommands.settingKeys))")
        }
        let id = try await repl.ensureConversation()
        let typed = ConversationSetting.Value(typed: value)
        do {
            _ = try await repl.chat.setSettings([(setting, typed)], conversationId: id)
        } catch ChatError.invalidSetting(let error) {
            throw UsageError("\(error)")
        }
        repl.output.line(typed == .clear ? "\(key) is back to the model's default." : "\(key) = \(UntrustedText.sanitize(value))")
    }

    /// Lists every setting of this conversation, `default` where the model's own value applies.
    static func list(repl: ReplSession) async throws {
        let settings = await repl.currentConversation()?.settings ?? ConversationSettings()
        var table = TextTable(columns: [.init("SETTING", priority: 0), .init("VALUE", minimumWidth: 8, priority: 1)])
        for setting in ConversationSetting.allCases {
            table.append([setting.rawValue, setting.value(in: settings).map(UntrustedText.sanitize) ?? "default"])
        }
        table.append(["speak", repl.speaksAnswers ? "on" : "off"])
        repl.output.send(table.text(width: repl.terminalWidth))
    }
}

/// `/system`: shows, sets or clears the system prompt through `ChatSession.setSystemPrompt`.
///
/// LM Studio reads `system_prompt` only on a server context's first request, so a change after the
/// first turn offers a fresh context; without one the prompt is saved but not yet in effect, and the REPL says so.
@ReplActor enum SystemPromptCommand {
    /// Bare: show the prompt; `clear`: clear it; else set it to `text`.
    static func run(_ text: String?, repl: ReplSession) async throws {
        guard let text else {
            let prompt = await repl.currentConversation()?.systemPrompt
            repl.output.line(prompt.map { UntrustedText.sanitize($0) } ?? "This conversation has no system prompt.")
            return
        }
        let value = text == "clear" ? nil : text
        let id = try await repl.ensureConversation()
        let effect = try await repl.chat.setSystemPrompt(value, conversationId: id)
        if effect == .unchanged { repl.output.line("The system prompt is already that."); return }
        await report(effect, what: value == nil ? "System prompt cleared" : "System prompt set", repl: repl)
    }

    /// `/preset NAME` (and `--preset`): the preset's model under the load policy, then its prompt and settings
    /// through `ChatSession.applyPreset`; before the first message the preset goes with the conversation's creation
    /// (`ConversationOverrides.preset`).
    static func applyPreset(_ name: String, repl: ReplSession) async throws {
        let preset: Preset
        do { preset = try repl.chat.preset(named: name) } catch let error as ChatError { throw UsageError("\(error)") }
        if let model = preset.model { try await ModelSwitch.choose(model, repl: repl) }
        guard let id = repl.conversationId else {
            repl.pendingPreset = name
            repl.output.line("Preset \(name) applies to this conversation from its first message.")
            return
        }
        let applied: PresetApplication
        do { applied = try await repl.chat.applyPreset(name, conversationId: id) } catch ChatError.invalidSetting(let error) {
            throw UsageError("preset \(name): \(error)")
        }
        await report(applied.systemPrompt ?? .unchanged, what: "Preset \(name) applied", repl: repl)
    }

    /// Says how a changed prompt takes effect; after the first turn, offers a fresh server context.
    private static func report(_ effect: SystemPromptEffect, what: String, repl: ReplSession) async {
        guard effect == .needsFreshContext else { repl.output.line(what + "."); return }
        repl.output.line("The server keeps this conversation's context with the old system prompt; a change takes effect only with a fresh server context (the model will not remember earlier turns).")
        if await repl.confirm("Start a fresh server context with the next message?") {
            repl.startsFreshContext = true
            repl.output.line(what + "; the next message starts a fresh server context.")
        } else {
            repl.output.line("Saved, not yet in effect: the prompt applies when this conversation next starts a fresh server context.")
        }
    }
}

/// `/show`: the transcript in `$PAGER` (default `less -R`), printed when there is no pager.
@ReplActor enum Pager {
    /// Shows the transcript (with reasoning or tool details), or message number N of `words`.
    static func show(_ words: [String], repl: ReplSession) async throws {
        guard let conversation = await repl.currentConversation() else { repl.output.line("Nothing to show yet."); return }
        let reasoning = words.contains("reasoning")
        let tools = words.contains("tools")
        let index = try words.first { !["reasoning", "tools"].contains($0) }.map { word -> Int in
            guard let number = Int(word), number > 0 else { throw UsageError("say a message number, reasoning or tools") }
            return number
        }
        let id = conversation.id
        let markdown: String = try await repl.chat.withLibrary { library in
            if let index {
                let messages = try library.messages(conversationId: id)
                guard index <= messages.count else { throw UsageError("this conversation has \(messages.count) messages") }
                let message = messages[index - 1]
                return (reasoning && !message.reasoning.isEmpty ? message.reasoning + "\n\n---\n\n" : "") + message.text
            }
            return try Transcript.markdown(of: conversation, library: library, reasoning: reasoning, tools: tools)
        }
        let capabilities = repl.context.terminal(fd: 1)
        let rendered = MarkdownRenderer(capabilities: capabilities, mode: MarkdownMode(rawValue: repl.context.markdownMode) ?? .auto).render(markdown)
        let pager = repl.context.environment["PAGER"].flatMap { $0.isEmpty ? nil : $0 } ?? "less -R"
        // A line-mode front end (Emacs comint, TERM=dumb) has its own scrolling; a pager there would wait for keys.
        guard capabilities.allowsCursorMovement else { repl.output.send(rendered); return }
        let path = NSTemporaryDirectory() + "llmster-show-\(getpid()).txt"
        try AtomicFile.write(Array(rendered.utf8), to: path, permissions: 0o600)
        defer { try? FileManager.default.removeItem(atPath: path) }
        if ExternalProgram.runShell("\(pager) \"$1\"", arguments: [path]) != 0 { repl.output.send(rendered) }
    }
}

/// `/copy`: the last reply or one of its code blocks to the terminal's clipboard with OSC 52.
@ReplActor enum Clipboard {
    /// Copies the last reply, or with `code N` its Nth code block.
    static func copy(_ words: [String], repl: ReplSession) async throws {
        guard let id = repl.conversationId,
              let reply = try await repl.chat.withLibrary({ try $0.messages(conversationId: id).last { $0.role == .assistant } }) else {
            repl.output.line("There is no reply to copy yet.")
            return
        }
        var text = reply.text
        if !words.isEmpty {
            guard words.count == 2, words[0] == "code", let number = Int(words[1]), number > 0 else {
                throw UsageError("say /copy, or /copy code N")
            }
            let blocks = codeBlocks(in: reply.text)
            guard number <= blocks.count else { throw UsageError("the last reply has \(blocks.count) code blocks") }
            text = blocks[number - 1]
        }
        // OSC 52 goes out to every full terminal, but none confirms it (many ignore it): a clipboard program makes
        // the copy certain. Emacs and TERM=dumb would show it as text.
        let sendsOSC52 = repl.context.terminal(fd: 1).allowsOperatingSystemCommands
        if sendsOSC52 { repl.output.send("\u{1B}]52;c;\(Data(text.utf8).base64EncodedString())\u{7}") }
        let environment = repl.context.environment
        let program = clipboardPrograms.first { name, variable, _ in
            environment[variable].map { !$0.isEmpty } == true && ExternalProgram.isAvailable(name, environment: environment)
        }
        if let (name, _, arguments) = program, ExternalProgram.feed(text, to: name, arguments: arguments) {
            repl.output.line("Copied \(text.utf8.count) bytes to the clipboard with \(name).")
        } else if sendsOSC52 {
            repl.output.line("Sent \(text.utf8.count) bytes to the terminal's clipboard with OSC 52 (if the terminal allows it; "
                             + "with wl-copy, xclip or tmux present the copy is certain).")
        } else {
            repl.output.line("Not copied: no clipboard program (wl-copy, xclip or tmux) is available, and this terminal "
                             + "gets no OSC 52 (inside Emacs or TERM=dumb).")
        }
    }

    /// The clipboard programs tried in order: the program, the variable saying its display is there, its arguments.
    nonisolated static let clipboardPrograms: [(String, String, [String])] = [
        ("wl-copy", "WAYLAND_DISPLAY", []),
        ("xclip", "DISPLAY", ["-selection", "clipboard"]),
        ("tmux", "TMUX", ["load-buffer", "-"]),
    ]

    /// The contents of the fenced code blocks in `markdown`, in order.
    nonisolated static func codeBlocks(in markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [String]?
        var fence = ""
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var lines = current {
                if trimmed.hasPrefix(fence), trimmed.allSatisfy({ $0 == fence.first }) {
                    blocks.append(lines.joined(separator: "\n"))
                    current = nil
                } else {
                    lines.append(String(line))
                    current = lines
                }
            } else if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                fence = String(trimmed.prefix { $0 == trimmed.first })
                current = []
            }
        }
        return blocks
    }
}
