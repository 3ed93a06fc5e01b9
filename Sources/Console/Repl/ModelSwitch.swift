import Chat
import Foundation
import LMStudio
import Library
import Markdown
import SystemSupport
import TerminalMarkdown

/// `/model` and `/load`: adapters over `ChatSession.selectModel` and `loadModel`, printing each step.
@ReplActor enum ModelSwitch {
    /// Makes `reference` the conversation's model under the load policy (see `ChatSession.selectModel`), printing
    /// unloads and the load.
    static func choose(_ reference: String, repl: ReplSession, options: LoadOptions = LoadOptions()) async throws {
        let selection: ModelSelection
        do {
            selection = try await repl.chat.selectModel(
                reference, conversationId: repl.conversationId, pending: repl.pendingModel,
                options: options, progress: reporter(repl: repl))
        } catch ChatError.modelNotDownloaded(let key, let suggestion) {
            let hint: SanitizedMessage = suggestion.map { "did you mean \($0)? " } ?? ""
            throw UsageError("\(key) is not downloaded on this server; \(hint)/models lists what is downloaded")
        } catch ChatError.notAChatModel(let key) {
            throw UsageError("\(key) is not a chat model")
        }
        if repl.conversationId == nil { repl.pendingModel = selection.model }
        await repl.refreshModels()
        repl.output.line("This conversation now uses \(selection.model).")
    }

    /// Prints the load policy's steps as they happen: unloads, and the load (its "Loading …" line erased once loaded,
    /// where a line can be rewritten).
    static func reporter(repl: ReplSession) -> @Sendable (ModelSelectionStep) async -> Void {
        let output = repl.output
        let errors = repl.context.errors
        let inPlace = repl.context.terminal(fd: 2).allowsCursorMovement
        return { step in
            switch step {
            case .loading:
                if inPlace { errors.send(SanitizedMessage(untrusted: LoadOptionArguments.line(for: step))) }
            case .loaded:
                if inPlace { errors.send("\r\u{1B}[2K") }
                output.line(SanitizedMessage(untrusted: LoadOptionArguments.line(for: step)))
            case .unloaded:
                output.line(SanitizedMessage(untrusted: LoadOptionArguments.line(for: step)))
            }
        }
    }

    /// Loads `key` with the conversation's (else the configured) context length, showing elapsed time.
    static func load(_ key: String, repl: ReplSession, options: LoadOptions = LoadOptions()) async throws {
        let chat = repl.chat
        let id = repl.conversationId
        let reply = try await LoadProgress(
            model: key, stream: repl.context.errors, environment: repl.context.environment
        ).around {
            try await chat.loadModel(key, conversationId: id, options: options)
        }
        await repl.refreshModels()
        repl.output.line(SanitizedMessage(untrusted: loadedLine(reply)))
    }

    /// `/model` without a key: the chat models numbered in the server's order, the current one marked, as an aligned
    /// table; a number picks one (the same numbers as `/model N`), other text narrows the list keeping each row's
    /// number (one match picks it), a slash command, or words matching no model, leave the list and are handled next
    /// as typed (`ReplSession.handBack`), Enter alone cancels. Returns the key.
    static func pick(repl: ReplSession) async throws -> String? {
        let all = try await chatModels(repl: repl)
        guard !all.isEmpty else {
            repl.output.line("The server has no chat models; /download fetches one.")
            return nil
        }
        let current = await repl.effectiveModel()?.key
        var shown = Array(all.indices)
        // Each row's words after its key (state, size, capabilities), which the text filter matches too.
        let badges = zip(all, repl.completions.badges(for: all.map(\.key))).map { model, line in
            line.hasPrefix(model.key)
                ? String(line.dropFirst(model.key.count)).trimmingCharacters(in: .whitespaces) : ""
        }
        var showsList = true
        while true {
            var table = TextTable(columns: [
                .init("#", priority: 0), .init("MODEL", minimumWidth: 16, priority: 0),
                .init("", minimumWidth: 10, priority: 1)
            ])
            for index in shown {
                let key = all[index].key
                table.append([String(index + 1), key + (key == current ? " (current)" : ""), badges[index]])
            }
            if showsList { repl.output.send(laidOut: table.text(width: repl.terminalWidth, fit: repl.textFit)) }
            showsList = true
            guard
                case .line(let answer) = await repl.readLine(
                    prompt: repl.promptRow("Model number, or text to narrow the list (Enter cancels):") + " ", draft: ""
                )
            else {
                return nil
            }
            let typed = answer.trimmingCharacters(in: .whitespaces)
            if repl.readAheadOfQuestion {
                // Typed before the list appeared (a message, a command): not a pick or a filter, whatever it matches.
                // It comes at the prompt after the list, in order; the list waits for what is typed at it.
                if !typed.isEmpty {
                    repl.handBack(answer)
                    repl.output.line(
                        "That line was typed before the list appeared; it comes at the prompt after the list.")
                }
                showsList = false
                continue
            }
            if typed.isEmpty { return nil }
            if typed.hasPrefix("/") {
                repl.output.line("Left the model list.")
                repl.handBack(answer)
                return nil
            }
            if let number = Int(typed) {
                if (1...all.count).contains(number) { return all[number - 1].key }
                repl.output.line("There is no model \(number); pick 1 to \(all.count).")
                continue
            }
            let narrowed = shown.filter { index in
                [all[index].key, all[index].displayName, badges[index]].contains {
                    $0.localizedCaseInsensitiveContains(typed)
                }
            }
            if narrowed.count == 1 { return all[narrowed[0]].key }
            if narrowed.isEmpty, typed.contains(where: \.isWhitespace) {
                // Words that match no model are a message (typed ahead, or typed at the wrong prompt), not a filter.
                repl.output.line("No model matches; left the model list, sending your message.")
                repl.handBack(answer)
                return nil
            }
            if narrowed.isEmpty {
                repl.output.line("No model matches '\(typed)'.")
            } else {
                shown = narrowed
            }
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
            throw UsageError(
                all.isEmpty
                    ? "the server has no chat models" : "there is no model \(number); /model lists 1 to \(all.count)")
        }
        return all[number - 1].key
    }

    /// `Loaded KEY as INSTANCE in 1.2 s.`
    private nonisolated static func loadedLine(_ reply: LoadResponse) -> String {
        LoadOptionArguments.loadedLine(reply)
    }
}
