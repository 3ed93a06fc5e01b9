import Foundation
import Synchronization
import SystemSupport

/// The REPL's input history, one entry a line in `Paths.historyFile` (`$XDG_STATE_HOME/llmster/history`), kept across runs.
///
/// Newlines and backslashes inside an entry are escaped (`\n`, `\\`) so multi-line messages stay one entry.
/// The file is rewritten atomically (mode 0600, its directory created 0700) after each entry and keeps the latest `limit` entries.
final class HistoryFile: Sendable {
    /// The history file.
    let path: String
    private let limit: Int
    private let stored: Mutex<[String]>

    /// Loads the history at `path` (an empty history when it does not exist yet).
    init(path: String, limit: Int = 1000) {
        self.path = path
        self.limit = limit
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        stored = Mutex(text.split(separator: "\n").map { Self.decode(String($0)) })
    }

    /// The entries, oldest first.
    var entries: [String] { stored.withLock { $0 } }

    /// Adds `entry` and saves the file; a failure to save is ignored (history is a convenience).
    func append(_ entry: String) {
        let text = stored.withLock { entries in
            entries.append(entry)
            if entries.count > limit { entries.removeFirst(entries.count - limit) }
            return entries.map(Self.encode).joined(separator: "\n") + "\n"
        }
        try? AtomicFile.write(Array(text.utf8), to: path, permissions: 0o600)
    }

    /// One entry as one line of the file.
    static func encode(_ entry: String) -> String {
        entry.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }

    /// An entry from one line of the file.
    static func decode(_ line: String) -> String {
        var result = ""
        var escaped = false
        for character in line {
            if escaped {
                result.append(character == "n" ? "\n" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}
