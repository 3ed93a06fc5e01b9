import Glibc
import SystemSupport
import TerminalMarkdown

/// The width model each terminal was found to use when a REPL started on it (`TerminalQuery`), kept in
/// `$XDG_STATE_HOME/llmster/terminal-widths` by the terminal's identity, so `ask` and the other one-shot commands
/// on that terminal use it without asking.
enum MeasuredWidths {
    /// Entries kept at most; the oldest go first.
    static let maximumEntries = 32

    static func file(_ paths: Paths) -> String { paths.stateDirectory + "/terminal-widths" }

    /// `TERM`, `TERM_PROGRAM` and the version the terminal gives, which together say which program (and release)
    /// draws; nil without `TERM`.
    static func identity(_ environment: [String: String]) -> String? {
        guard let term = environment["TERM"], !term.isEmpty else { return nil }
        let version =
            environment["TERM_PROGRAM_VERSION"] ?? environment["VTE_VERSION"] ?? environment["KONSOLE_VERSION"] ?? ""
        return [term, environment["TERM_PROGRAM"] ?? "", version].joined(separator: " ")
    }

    /// The model recorded for the terminal `environment` describes, if any.
    static func model(paths: Paths, environment: [String: String]) -> WidthModel? {
        guard let identity = identity(environment) else { return nil }
        return entries(paths)[identity]
    }

    /// Records `model` for the terminal `environment` describes, unless it is recorded already (a write that fails
    /// leaves the previous file).
    static func record(_ model: WidthModel, paths: Paths, environment: [String: String]) {
        guard let identity = identity(environment) else { return }
        var lines = lines(paths)
        guard !lines.contains(identity + "\t" + model.rawValue) else { return }
        lines.removeAll { $0.hasPrefix(identity + "\t") }
        lines.append(identity + "\t" + model.rawValue)
        let text = lines.suffix(maximumEntries).map { $0 + "\n" }.joined()
        try? Directory.create(paths.stateDirectory)
        try? AtomicFile.write(Array(text.utf8), to: file(paths), permissions: 0o600)
    }

    private static func lines(_ paths: Paths) -> [String] {
        guard let bytes = try? RegularFile.read(file(paths), limit: 64 << 10) else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    private static func entries(_ paths: Paths) -> [String: WidthModel] {
        var entries: [String: WidthModel] = [:]
        for line in lines(paths) {
            let parts = line.split(separator: "\t", maxSplits: 1)
            if parts.count == 2, let model = WidthModel(rawValue: String(parts[1])) {
                entries[String(parts[0])] = model
            }
        }
        return entries
    }
}
