import Chat
import Foundation
import LMStudio
import Library
import Markdown
import TerminalMarkdown

/// The REPL's slash commands.
enum ReplCommands {
    /// The `/set` keys.
    static let settingKeys = ConversationSetting.allCases.map(\.rawValue) + ["speak"]

    /// Every command, in the order `/help` lists them.
    static let all: [SlashCommand] =
        conversationCommands + contextCommands + branchingCommands + movingCommands + serverCommands

    /// Models, conversations, settings and the session.
    static let conversationCommands: [SlashCommand] = [
        SlashCommand("help", "[COMMAND]", "List the commands, or describe one.", argument: .commandName) {
            arguments, repl in
            let width = repl.terminalWidth
            let fit = repl.textFit
            if let name = arguments.positionals.first {
                let name = name.hasPrefix("/") ? String(name.dropFirst()) : name
                guard let command = all.first(where: { $0.name == name }) else {
                    throw UsageError("there is no command /\(name)")
                }
                let usage = command.usageLine.lines(width: width, fit: fit)
                repl.output.line(
                    SanitizedMessage(
                        untrusted: (usage + TextLayout.wrap(command.summary, width: width, fit: fit)).joined(
                            separator: "\n")))
                if !command.parser.options.isEmpty {
                    repl.output.line(SanitizedMessage(untrusted: command.parser.optionHelp(width: width, fit: fit)))
                }
                return
            }
            let lines = all.map { command in
                TextLayout.hanging(
                    "  " + command.listing, command.summary, column: 30, width: width,
                    maximumColumn: max(width - 30, 6),
                    fit: fit)
            }
            let keys = """
                Enter sends. A trailing \\ or a \"\"\" … \"\"\" block continues a message; Alt-Enter or Ctrl-J inserts a newline; \
                Ctrl-X Ctrl-E edits the message in $EDITOR; a paste taller than the screen shows as [pasted N lines] and is sent whole. \
                Ctrl-C cancels a reply or leaves the line (kept as the draft); Ctrl-D quits. A line starting with a space is not kept \
                in the history; // sends a line starting with /. `llmster show CHAT > file` writes a conversation as Markdown too.
                """
            try await Pager.page(
                (lines + [""] + TextLayout.wrap(keys, width: width, fit: fit)).joined(separator: "\n") + "\n",
                repl: repl, title: "llmster help", whenTaller: true)
        },
        SlashCommand(
            "models", "",
            "List the server's models: loaded state, size, format, capabilities.",
            options: ModelCommands.filterOptions
        ) { arguments, repl in
            let models = ModelListing.filter(try await repl.chat.models(refresh: true), arguments)
            if models.isEmpty {
                repl.output.line("No model matches.")
                return
            }
            repl.output.send(
                laidOut:
                    ModelListing.table(
                        models, width: repl.terminalWidth, fit: repl.textFit,
                        aliases: repl.context.configuration.aliases))
        },
        SlashCommand(
            "model", "[KEY|N]",
            "Use model KEY (or row N of the list) for this conversation, loading it and unloading the previous one; without KEY, pick from a numbered list.",
            options: LoadOptionArguments.options, argument: .modelKey
        ) { arguments, repl in
            guard arguments.positionals.count <= 1 else { throw UsageError("name one model; /models lists them") }
            let options = try LoadOptionArguments.parse(arguments)
            guard let key = arguments.positionals.first else {
                if let picked = try await ModelSwitch.pick(repl: repl) {
                    try await ModelSwitch.choose(picked, repl: repl, options: options)
                }
                return
            }
            // A number is a row of the picker's list: model keys are never plain numbers.
            var chosen = key
            if let number = Int(key) { chosen = try await ModelSwitch.numbered(number, repl: repl) }
            try await ModelSwitch.choose(chosen, repl: repl, options: options)
        },
        SlashCommand(
            "load", "[KEY]", "Load a model (default: this conversation's).",
            options: LoadOptionArguments.options, argument: .modelKey
        ) { arguments, repl in
            guard arguments.positionals.count <= 1 else { throw UsageError("name at most one model") }
            let current = await repl.effectiveModel()?.key
            guard let key = arguments.positionals.first ?? current else {
                throw UsageError("this conversation has no model yet; name one")
            }
            try await ModelSwitch.load(key, repl: repl, options: try LoadOptionArguments.parse(arguments))
        },
        SlashCommand(
            "unload", "[INSTANCE…]", "Unload model instances (default: this conversation's model).",
            argument: .instance
        ) { arguments, repl in
            let models = try await repl.chat.models(refresh: true)
            repl.serverModels = models
            var targets = arguments.positionals
            if targets.isEmpty {
                targets = (await repl.effectiveModel())?.model?.loadedInstances.map(\.id) ?? []
            }
            guard !targets.isEmpty else { throw UsageError("nothing to unload; /ps lists the loaded instances") }
            for instance in targets {
                do { try await repl.chat.unloadModel(instanceId: instance) } catch ChatError.notLoaded {
                    repl.context.warn("\(instance) is not loaded; /ps lists what is loaded")
                    continue
                }
                repl.output.line("Unloaded \(instance).")
            }
            await repl.refreshModels()
        },
        SlashCommand("ps", "", "List the loaded model instances.") { _, repl in
            let models = try await repl.chat.models(refresh: true)
            repl.output.send(
                laidOut:
                    models.contains(where: \.isLoaded)
                    ? ModelListing.instances(models, width: repl.terminalWidth, fit: repl.textFit)
                    : "No model is loaded.\n")
        },
        SlashCommand("new", "[TITLE]", "Start a new conversation (the current one's draft is kept).", takesText: true) {
            arguments, repl in
            let overrides = ConversationOverrides(
                title: arguments.positionals.first ?? "", model: (await repl.effectiveModel())?.reference)
            await repl.switchTo(try await repl.chat.openConversation(.new, overrides: overrides).conversation.id)
        },
        SlashCommand("clear", "", "Start a new conversation with this one's model, system prompt, settings and folder.")
        { _, repl in
            guard let current = await repl.currentConversation() else {
                repl.output.line("Nothing to clear yet.")
                return
            }
            let model = await repl.effectiveModel()?.reference
            let id = try await repl.chat.startAfresh(from: current, model: model)
            await repl.switchTo(id)
            repl.output.line("New conversation, same model and settings.")
        },
        SlashCommand(
            "chats", "[FOLDER]", "List conversations, pinned first (in FOLDER and its sub-folders).", argument: .folder
        ) { arguments, repl in
            let folder = arguments.positionals.first
            let listing: ConversationListing
            do {
                listing = try await repl.chat.listConversations(folder: folder)
            } catch ChatError.storage(.notFound(kind: "folder", let path)) {
                throw UsageError("there is no folder '\(path)'; /folder lists them")
            }
            repl.output.send(
                laidOut:
                    listing.conversations.isEmpty
                    ? listing.emptyNotice + "\n" : listing.text(width: repl.terminalWidth, fit: repl.textFit))
        },
        SlashCommand(
            "open", "CHAT", "Switch to a conversation (an id, id prefix or title).", takesText: true,
            argument: .conversation
        ) { arguments, repl in
            guard var reference = arguments.positionals.first else {
                throw UsageError("name a conversation; /chats lists them")
            }
            // Tab offers titles with spaces in quotes; the quotes are not part of the title.
            if reference.count > 1, let quote = reference.first, "\"'".contains(quote), reference.last == quote {
                reference = String(reference.dropFirst().dropLast())
            }
            let conversation = try await repl.chat.openConversation(.named(reference)).conversation
            await repl.switchTo(conversation.id)
            repl.output.line("Opened \(UntrustedText.oneLine(conversation.displayTitle)).")
        },
        SlashCommand("rename", "TITLE", "Rename this conversation.", takesText: true) { arguments, repl in
            guard let title = arguments.positionals.first else { throw UsageError("give the new title") }
            let id = try await repl.ensureConversation()
            try await repl.chat.withLibrary { try $0.rename(conversationId: id, to: title) }
            repl.output.line("Renamed this conversation to \(UntrustedText.oneLine(title)).")
        },
        SlashCommand(
            "folder", "new|rename|rm|list [PATH] [NAME]", "Create, rename, remove or list folders.", argument: .folder
        ) { arguments, repl in
            let words = arguments.positionals
            switch (words.first, words.count) {
            case ("list", 1), (nil, 0):
                let paths = try await repl.chat.withLibrary { library in try library.folderPaths().values.sorted() }
                repl.output.line(
                    paths.isEmpty ? "No folders." : "\(paths.map(UntrustedText.oneLine).joined(separator: "\n"))")
            case ("new", 2):
                let existed = try await repl.chat.withLibrary { library in
                    let existed = try library.folder(path: words[1]) != nil
                    _ = try library.ensureFolder(path: words[1])
                    return existed
                }
                repl.output.line(
                    "\(existed ? "There already is" : "Created") folder \(UntrustedText.sanitize(words[1])).")
            case ("rename", 3):
                try await repl.chat.withLibrary { library in
                    guard let folder = try library.folder(path: words[1]) else {
                        throw UsageError("there is no folder '\(words[1])'")
                    }
                    try library.renameFolder(id: folder.id, to: words[2])
                }
                repl.output.line(
                    "Renamed folder \(UntrustedText.sanitize(words[1])) to \(UntrustedText.sanitize(words[2])).")
            case ("rm", 2):
                try await FolderRemoval.run(path: words[1], repl: repl)
            default:
                throw UsageError("say new PATH, rename PATH NAME, rm PATH or list")
            }
        },
        SlashCommand(
            "mv", "[CHAT] FOLDER", "Move a conversation (default: this one) into a folder (/ for the top level).",
            argument: .folder
        ) { arguments, repl in
            let words = arguments.positionals
            guard (1...2).contains(words.count) else {
                throw UsageError("name the folder, and optionally the conversation first")
            }
            let id =
                words.count == 1
                ? try await repl.ensureConversation() : try await repl.chat.resolveConversation(words[0]).id
            let folder = words.last!
            let title = try await repl.chat.withLibrary { library in
                let folderId = folder == "/" ? nil : try library.ensureFolder(path: folder).id
                try library.move(conversationId: id, to: folderId)
                return try library.conversation(id: id)?.title ?? ""
            }
            let name = words.count == 1 ? "this conversation" : UntrustedText.oneLine(title.isEmpty ? id : title)
            repl.output.line(
                "Moved \(name) to " + (folder == "/" ? "the top level." : "folder \(UntrustedText.oneLine(folder))."))
        },
        SlashCommand("pin", "", "Pin this conversation to the top of /chats.") { _, repl in
            let id = try await repl.ensureConversation()
            try await repl.chat.withLibrary { try $0.pin(conversationId: id) }
            repl.output.line("Pinned: this conversation is listed first in /chats.")
        },
        SlashCommand("unpin", "", "Unpin this conversation.") { _, repl in
            guard let id = repl.conversationId else {
                repl.output.line("Nothing to unpin: this chat is not saved yet.")
                return
            }
            try await repl.chat.withLibrary { try $0.unpin(conversationId: id) }
            repl.output.line("Unpinned.")
        },
        SlashCommand("delete", "", "Delete this conversation (asks first).") { _, repl in
            guard let id = repl.conversationId else {
                repl.output.line("Nothing to delete yet.")
                return
            }
            let title = try await repl.chat.withLibrary { try $0.conversation(id: id)?.title } ?? ""
            let name = UntrustedText.oneLine(title.isEmpty ? id : title)
            guard await repl.confirm("Delete \(name) and all its messages?") else {
                repl.output.line("Kept \(name).")
                return
            }
            try await repl.chat.withLibrary { try $0.delete(conversationId: id) }
            repl.conversationId = nil
            repl.keptDraft = ""
            repl.shownDraft = ""
            repl.draft = ""
            repl.output.line("Deleted \(name).")
        },
        SlashCommand("search", "TEXT", "Search every conversation.", takesText: true) { arguments, repl in
            guard let text = arguments.positionals.first else { throw UsageError("give the words to search for") }
            let hits = try await repl.chat.withLibrary {
                try $0.search(text, limit: 20, highlight: SearchListing.highlight)
            }
            if hits.isEmpty {
                repl.output.line("Nothing matches '\(text)'.")
                return
            }
            repl.output.send(laidOut: SearchListing.table(hits, width: repl.terminalWidth, fit: repl.textFit))
        },
        SlashCommand(
            "show", "[N|reasoning|tools]", "Show this conversation (or its Nth message) in the pager.",
            argument: .choices(["reasoning", "tools"])
        ) { arguments, repl in
            try await Pager.show(arguments.positionals, repl: repl)
        },
        SlashCommand(
            "system", "[TEXT|clear]", "Show this conversation's system prompt, set it, or clear it.", takesText: true
        ) { arguments, repl in
            try await SystemPromptCommand.run(arguments.positionals.first, repl: repl)
        },
        SlashCommand("presets", "", "List the configured presets (preset.NAME.system = … in the config).") { _, repl in
            let presets = repl.chat.presets
            guard !presets.isEmpty else {
                repl.output.line(
                    "No presets are configured: add `preset.NAME.system = …` (and optionally preset.NAME.model, preset.NAME.temperature …) to the config."
                )
                return
            }
            let column = min((presets.map(\.name.count).max() ?? 0) + 4, 24)
            let width = repl.terminalWidth
            let lines = presets.map {
                TextLayout.hanging(
                    "  " + $0.name, UntrustedText.sanitize($0.summary), column: column, width: width,
                    maximumColumn: max(width - 30, 6), fit: repl.textFit)
            }
            repl.output.line(SanitizedMessage(untrusted: lines.joined(separator: "\n")))
        },
        SlashCommand(
            "preset", "NAME [TEXT]",
            "Give this conversation preset NAME's system prompt, model and settings (/presets lists them); with a template, it fills TEXT (sent at once) or your next message.",
            takesText: true, argument: .preset
        ) { arguments, repl in
            let line = arguments.positionals.first ?? ""
            let name = String(line.prefix { $0 != " " })
            guard !name.isEmpty else { throw UsageError("name one preset; /presets lists them") }
            let text = line.dropFirst(name.count).trimmingCharacters(in: .whitespaces)
            try await SystemPromptCommand.applyPreset(name, repl: repl, sendsText: !text.isEmpty)
            guard !text.isEmpty else { return }
            if repl.templatePreset == nil {
                throw UsageError("preset \(name) has no template; send the message on its own line")
            }
            if let status = await repl.send(text) { repl.exitStatus = status }
        },
        SlashCommand(
            "set", "[KEY VALUE]",
            "List this conversation's settings, or set one (" + settingKeys.joined(separator: ", ")
                + "; 'default' clears).",
            argument: .setting
        ) { arguments, repl in
            switch arguments.positionals.count {
            case 0: try await SettingsCommand.list(repl: repl)
            case 2: try await SettingsCommand.set(arguments.positionals[0], to: arguments.positionals[1], repl: repl)
            default:
                throw UsageError("give a key and a value, e.g. /set temperature 0.7, or nothing to list the settings")
            }
        },
        SlashCommand(
            "attach", "FILE", "Attach an image to the next message (vision models only).", takesText: true,
            argument: .path
        ) { arguments, repl in
            guard let path = arguments.positionals.first else { throw UsageError("name an image file") }
            let expanded = (path as NSString).expandingTildeInPath
            if let effective = await repl.effectiveModel(), let model = effective.model,
                model.capabilities?.vision != true
            {
                throw UsageError(
                    "\(effective.reference) does not read images; choose a vision model with /model (/models --vision lists them)"
                )
            }
            do { repl.attachments.append(try ImageInput.load(path: expanded)) } catch { throw UsageError("\(error)") }
            repl.output.line(
                "Attached \(UntrustedText.sanitize(path)); it goes with your next message (/context lists what waits, /context drop N removes it)."
            )
        },
        SlashCommand(
            "copy", "[code N]",
            "Copy the last reply, or its Nth code block, to the clipboard (wl-copy, xclip or tmux when present, and OSC 52)."
        ) { arguments, repl in
            try await Clipboard.copy(arguments.positionals, repl: repl)
        },
        SlashCommand(
            "save", "FILE",
            "Write this conversation (or only its last reply) to FILE as Markdown; `llmster show CHAT > FILE` does it from the shell.",
            options: [
                .init([.last], help: "only the last reply"),
                .init([.reasoning], help: "include the reasoning")
            ], argument: .path
        ) { arguments, repl in
            try await SaveCommand.save(arguments, repl: repl)
        },
        SlashCommand("stats", "", "Show the last reply's token statistics and the context estimate.") { _, repl in
            guard let conversation = await repl.currentConversation() else {
                repl.output.line("No reply yet.")
                return
            }
            let statistics = try await repl.chat.withLibrary {
                try $0.lastReplyStatistics(conversationId: conversation.id)
            }
            let meter = await repl.contextMeter(
                conversation: conversation, model: repl.effectiveModel(conversation: conversation))
            var lines = [meter.label()]
            if let statistics {
                lines.append(
                    "input \(statistics.inputTokens ?? 0) tokens, output \(statistics.totalOutputTokens ?? 0) tokens"
                        + (statistics.reasoningOutputTokens.map { " (\($0) reasoning)" } ?? ""))
                if let rate = statistics.tokensPerSecond { lines.append(String(format: "%.1f tokens/s", rate)) }
                if let first = statistics.timeToFirstTokenSeconds {
                    lines.append(String(format: "first token after %.2f s", first))
                }
                if let load = statistics.modelLoadTimeSeconds {
                    lines.append(String(format: "model loaded for this reply in %.2f s", load))
                }
            }
            repl.output.line(SanitizedMessage(untrusted: lines.joined(separator: "\n")))
        },
        SlashCommand("quit", "", "Leave the REPL (the draft is kept).") { _, repl in
            repl.exitStatus = ExitCode.success
        }
    ]
}
