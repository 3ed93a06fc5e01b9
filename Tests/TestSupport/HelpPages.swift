/// The built `llmster`'s help as a user reads it: the commands `llmster --help` lists (the executable's `voice` and
/// `rpc` included) and each one's `llmster COMMAND --help` page, read once per test process for every test that
/// checks them.
public enum HelpPages {
    /// Each listed command's name and `--help` page, in the list's order.
    public static func commands() async throws -> [(name: String, page: String)] { try await pages.value }

    /// The commands `help` (llmster's `--help`, at any width) lists, in order.
    public static func commandNames(inHelp help: String) throws -> [String] {
        guard let list = help.components(separatedBy: "\ncommands:\n").dropFirst().first else {
            throw HelpPagesError(help: help)
        }
        return list.components(separatedBy: "\n\n")[0]
            .split(separator: "\n").filter { !$0.hasPrefix("   ") }.map { String($0.split(separator: " ")[0]) }
    }

    private static let pages = Task { () throws -> [(name: String, page: String)] in
        let llmster = try BuiltProduct.path("llmster")
        let help = try await ProcessRunner.run(llmster, ["--help"], environment: [:]).output
        var pages: [(name: String, page: String)] = []
        for name in try commandNames(inHelp: help) {
            pages.append((name, try await ProcessRunner.run(llmster, [name, "--help"], environment: [:]).output))
        }
        return pages
    }
}

/// `llmster --help` without its list of commands.
public struct HelpPagesError: Error, CustomStringConvertible {
    public let help: String
    public var description: String { "llmster --help lists no commands:\n\(help)" }
}
