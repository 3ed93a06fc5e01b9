import Chat
import Foundation
import Library
import LMStudio
import SystemSupport
import TerminalMarkdown

/// `/model` and `/load`: choosing a conversation's model under the load policy, and loading with progress.
enum ModelSwitch {
    /// Makes `key` the conversation's model: unloads what `LoadPolicy` plans, then loads `key` if it is not loaded.
    static func choose(_ key: String, repl: ReplSession) async throws {
        let models = try await repl.chat.models(refresh: true)
        guard let model = models.first(where: { $0.key == key }) else {
            throw UsageError("\(key) is not downloaded on this server; /models lists what is")
        }
        guard model.type == .llm else { throw UsageError("\(key) is not a chat model") }
        let previous = await repl.currentModelKey()
        let configuration = repl.context.configuration
        let policy = LoadPolicy(keepPreviousModels: configuration.keepPreviousModels, summarizerModel: configuration.summarizerModel)
        let loaded = models.flatMap { model in model.loadedInstances.map { LoadPolicy.Instance(id: $0.id, modelKey: model.key) } }
        let plan = policy.plan(loaded: loaded, previous: previous, chosen: key)
        for instance in plan.unload {
            try await repl.chat.client.unload(instanceId: instance)
            repl.output.line("Unloaded \(UntrustedText.sanitize(instance)).")
        }
        if let id = repl.conversationId {
            try await repl.chat.withLibrary { library in
                guard var conversation = try library.conversation(id: id) else { return }
                conversation.modelKey = key
                try library.updateConversation(conversation)
            }
        } else {
            repl.pendingModel = key
        }
        await repl.chat.invalidateModels()
        if plan.load { try await load(key, repl: repl) }
        repl.output.line("This conversation now uses \(UntrustedText.sanitize(key)).")
    }

    /// Loads `key` with the conversation's (else the configured) context length, showing elapsed time.
    static func load(_ key: String, repl: ReplSession) async throws {
        let contextLength = await repl.currentConversation()?.settings.contextLength ?? repl.context.configuration.contextLength
        let client = repl.chat.client
        let reply = try await LoadProgress(model: key, stream: repl.context.errors, environment: repl.context.environment).around {
            try await client.load(LoadRequest(model: key, contextLength: contextLength))
        }
        await repl.chat.invalidateModels()
        let seconds = reply.loadTimeSeconds.map { String(format: " in %.1f s", $0) } ?? ""
        repl.output.line("Loaded \(UntrustedText.sanitize(key)) as \(UntrustedText.sanitize(reply.instanceId))\(seconds).")
    }
}

/// `/set KEY VALUE`: validated sampling options saved in the conversation's settings.
enum SettingsCommand {
    /// Sets `key` to `value` (`default` clears it) after checking the value's range or the model's options.
    static func set(_ key: String, to value: String, repl: ReplSession) async throws {
        if key == "speak" {
            guard ["on", "off"].contains(value) else { throw UsageError("speak takes on or off") }
            repl.speaksAnswers = value == "on"
            repl.output.line("Voice answers are \(value) for /voice in this session.")
            return
        }
        let id = try await repl.ensureConversation()
        let clear = ["default", "none", "-"].contains(value)
        func number(_ range: ClosedRange<Double>) throws -> Double? {
            if clear { return nil }
            guard let number = Double(value), range.contains(number) else {
                throw UsageError("\(key) takes a number from \(range.lowerBound) to \(range.upperBound), or 'default'")
            }
            return number
        }
        func count() throws -> Int? {
            if clear { return nil }
            guard let number = Int(value), number > 0 else { throw UsageError("\(key) takes a positive whole number, or 'default'") }
            return number
        }
        var reasoning: String?
        if key == "reasoning", !clear {
            let models = try await repl.chat.models()
            let modelKey = await repl.currentModelKey()
            let allowed = models.first { $0.key == modelKey }?.capabilities?.reasoning?.allowedOptions ?? []
            guard allowed.contains(value) else {
                throw UsageError(allowed.isEmpty ? "\(modelKey ?? "this model") has no reasoning options"
                                                 : "reasoning takes one of " + allowed.joined(separator: ", "))
            }
            reasoning = value
        }
        var settings = try await repl.chat.withLibrary { try $0.conversation(id: id)?.settings } ?? ConversationSettings()
        switch key {
        case "temperature": settings.temperature = try number(0...2)
        case "top_p": settings.topP = try number(0...1)
        case "min_p": settings.minP = try number(0...1)
        case "repeat_penalty": settings.repeatPenalty = try number(0...10)
        case "top_k": settings.topK = try count()
        case "max_output_tokens": settings.maxOutputTokens = try count()
        case "context_length": settings.contextLength = try count()
        case "reasoning": settings.reasoning = reasoning
        default: throw UsageError("unknown setting '\(key)'; one of " + ReplCommands.settingKeys.joined(separator: ", "))
        }
        let updated = settings
        try await repl.chat.withLibrary { library in
            guard var conversation = try library.conversation(id: id) else { return }
            conversation.settings = updated
            try library.updateConversation(conversation)
        }
        repl.output.line(clear ? "\(key) is back to the model's default." : "\(key) = \(UntrustedText.sanitize(value))")
    }
}

/// `/show`: the transcript in `$PAGER` (default `less -R`), printed when there is no pager.
enum Pager {
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
        let capabilities = TerminalCapabilities.detect(fd: 1, environment: repl.context.environment)
        let rendered = MarkdownRenderer(capabilities: capabilities, mode: MarkdownMode(rawValue: repl.context.markdownMode) ?? .auto).render(markdown)
        let pager = repl.context.environment["PAGER"].flatMap { $0.isEmpty ? nil : $0 } ?? "less -R"
        guard capabilities.isTTY else { repl.output.send(rendered); return }
        let path = NSTemporaryDirectory() + "llmster-show-\(getpid()).txt"
        try AtomicFile.write(Array(rendered.utf8), to: path, permissions: 0o600)
        defer { try? FileManager.default.removeItem(atPath: path) }
        if ExternalProgram.runShell("\(pager) \"$1\"", arguments: [path]) != 0 { repl.output.send(rendered) }
    }
}

/// `/copy`: the last reply or one of its code blocks to the terminal's clipboard with OSC 52.
enum Clipboard {
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
        let encoded = Data(text.utf8).base64EncodedString()
        repl.output.send("\u{1B}]52;c;\(encoded)\u{7}")
        repl.output.line("Copied \(text.utf8.count) bytes to the clipboard.")
    }

    /// The contents of the fenced code blocks in `markdown`, in order.
    static func codeBlocks(in markdown: String) -> [String] {
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
