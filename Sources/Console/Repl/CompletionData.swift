import Chat
import Foundation
import LMStudio
import Synchronization

/// What tab completion offers, refreshed by the REPL (from its cached state) and read on the readline thread.
final class CompletionData: Sendable {
    struct Snapshot: Sendable {
        var models: [Model] = []
        var folders: [String] = []
        var titles: [String] = []
        var reasoningOptions: [String] = []
        var presets: [String] = []
        var aliases: [String] = []
        var servers: [String] = []
    }

    private let snapshot = Mutex(Snapshot())

    /// Replaces the model list.
    func update(models: [Model]) { snapshot.withLock { $0.models = models } }

    /// Replaces the reasoning values the current conversation's effective model offers.
    func update(reasoningOptions: [String]) { snapshot.withLock { $0.reasoningOptions = reasoningOptions } }

    /// Replaces the configured model aliases (`alias.NAME`), offered with the model keys.
    func update(aliases: [String]) { snapshot.withLock { $0.aliases = aliases } }

    /// Replaces the configured server profile names.
    func update(servers: [String]) { snapshot.withLock { $0.servers = servers } }

    /// Replaces the configured preset names.
    func update(presets: [String]) { snapshot.withLock { $0.presets = presets } }

    /// Replaces the folder paths and conversation titles.
    func update(folders: [String], titles: [String]) {
        snapshot.withLock {
            $0.folders = folders
            $0.titles = titles
        }
    }

    /// The candidates for the word in `request`.
    func complete(_ request: CompletionRequest) -> [String] {
        let data = snapshot.withLock { $0 }
        let words = request.previousWords
        guard let first = words.first else {
            guard request.word.hasPrefix("/") else { return [] }
            return ReplCommands.all.map { "/" + $0.name }.filter { $0.hasPrefix(request.word) }
        }
        guard first.hasPrefix("/"), let command = ReplCommands.all.first(where: { "/" + $0.name == first }) else {
            return []
        }
        let candidates: [String]
        if request.word.hasPrefix("-") {
            candidates = command.parser.options.map { "--" + $0.names[0] }
        } else {
            switch command.argument {
            case .none, .path: candidates = []
            case .commandName: candidates = ReplCommands.all.map(\.name)
            case .modelKey: candidates = data.aliases + data.models.filter(\.canChat).map(\.key)
            case .instance: candidates = data.models.flatMap { $0.loadedInstances.map(\.id) }
            case .folder:
                candidates = words.count == 1 && first == "/folder" ? ["new", "rename", "rm", "list"] : data.folders
            case .conversation: return Self.titles(data.titles, for: request)
            case .choices(let choices): candidates = choices
            case .preset: candidates = data.presets
            case .serverProfile: candidates = data.servers
            case .setting:
                if words.count == 1 {
                    candidates = ReplCommands.settingKeys
                } else if words[1] == "reasoning" {
                    candidates = data.reasoningOptions
                } else if words[1] == "speak" {
                    candidates = ["on", "off"]
                } else {
                    candidates = []
                }
            }
        }
        return candidates.filter { $0.hasPrefix(request.word) }
    }

    /// Titles for `/open`: inside quotes as they are (readline closes the quote); unquoted, a title with spaces
    /// is offered in double quotes, or, after words already typed, from the word being completed on.
    static func titles(_ titles: [String], for request: CompletionRequest) -> [String] {
        if request.quote != nil { return titles.filter { $0.hasPrefix(request.word) } }
        let typed = (request.previousWords.dropFirst() + [request.word]).joined(separator: " ")
        let matching = titles.filter { $0.hasPrefix(typed) }
        guard request.previousWords.count == 1 else {
            return matching.map { String($0.dropFirst(typed.count - request.word.count)) }
        }
        return matching.map { $0.contains(" ") ? "\"" + $0.replacingOccurrences(of: "\"", with: "'") + "\"" : $0 }
    }

    /// `acme/thinker-8b  loaded · reasoning · 4.9 GB` for each model key among `matches`.
    func badges(for matches: [String]) -> [String] {
        let models = snapshot.withLock { $0.models }
        return matches.map { match in
            guard let model = models.first(where: { $0.key == match }) else { return match }
            var badges = [model.isLoaded ? "loaded" : "not loaded"]
            if model.capabilities?.vision == true { badges.append("vision") }
            if model.capabilities?.trainedForToolUse == true { badges.append("tools") }
            if model.supportsReasoning { badges.append("reasoning") }
            badges.append(Units.bytes(model.sizeBytes))
            return match + "  " + badges.joined(separator: " · ")
        }
    }
}
