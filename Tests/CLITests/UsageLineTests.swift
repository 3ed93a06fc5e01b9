import Foundation
import TestSupport
import Testing

/// What a user reads: every command's `--help` usage line (the executable's `voice` and `rpc` included) names every
/// option its option list shows, as a whole word.
@Suite(.spawnsProcesses) struct UsageLineTests {
    @Test func everyCommandsUsageNamesEveryOptionItLists() async throws {
        let commands = try await HelpPages.commands()
        #expect(
            commands.contains { $0.name == "voice" } && commands.contains { $0.name == "rpc" },
            "\(commands.map(\.name))")
        for (command, page) in commands {
            let usage = page.components(separatedBy: "\n\n")[0]
            let words = Set(
                usage.split(whereSeparator: { " \n[]|…".contains($0) }).map { String($0.split(separator: "=")[0]) })
            let options = try #require(page.components(separatedBy: "\noptions:\n").dropFirst().first, "\(page)")
            // Only the option's own term, before the gap to its help text (which may name other options).
            let listed = options.split(separator: "\n").filter { $0.hasPrefix("  -") }
                .map { $0.dropFirst(2).components(separatedBy: "  ")[0] }
                .map {
                    $0.split(separator: " ").filter { $0.hasPrefix("-") }.map { String($0.split(separator: "[")[0]) }
                }
            for names in listed where !names.contains("--help") {
                let spellings = names.map { $0.hasSuffix(",") ? String($0.dropLast()) : $0 }
                #expect(spellings.contains(where: words.contains), "llmster \(command)'s usage leaves out \(spellings)")
            }
        }
    }
}
