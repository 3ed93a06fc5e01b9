import Chat
import Foundation
import Testing

/// The configuration keys are declared once (`Configuration.keys`, from its table of settings); the man page's
/// CONFIGURATION section and the shipped `share/config.sample` must name every one of them, and the sample's values
/// must be the defaults, so neither drifts from the table when a key is added or its default changes.
@Suite struct ConfigurationDocumentationTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../..")

    /// The man page's CONFIGURATION section, from its heading to the next.
    private static func manSection() throws -> String {
        let page = try String(contentsOf: root.appendingPathComponent("man/llmster.1"), encoding: .utf8)
        let start = try #require(page.range(of: "\n.SH CONFIGURATION\n"))
        let rest = page[start.upperBound...]
        return String(rest[..<(rest.range(of: "\n.SH ")?.lowerBound ?? rest.endIndex)])
    }

    private static func sample() throws -> String {
        try String(contentsOf: root.appendingPathComponent("share/config.sample"), encoding: .utf8)
    }

    @Test func theManPageNamesEveryKey() throws {
        let section = try Self.manSection()
        // As troff sets a key in bold: `.B key`, `.BR key ,` or `\fBkey\fR`.
        let missing = Configuration.keys.map(\.key).filter { key in
            !section.contains(".B \(key)\n") && !section.contains(".BR \(key) ") && !section.contains(".BR \(key)\n")
                && !section.contains("\\fB\(key)\\fR")
        }
        #expect(missing.isEmpty, "man llmster's CONFIGURATION leaves out \(missing)")
    }

    @Test func theSampleNamesEveryKeyWithItsDefault() throws {
        let lines = try Self.sample().split(separator: "\n").map(String.init)
        let defaults = Configuration()
        for (key, _) in Configuration.keys {
            let line = lines.first { $0.hasPrefix("\(key) = ") || $0.hasPrefix("# \(key) = ") }
            #expect(line != nil, "share/config.sample has no line for \(key)")
            guard let line, !line.hasPrefix("#") else { continue }
            let value = String(line.dropFirst(key.count + 3))
            var sampled = Configuration()
            try sampled.setValue(value, forKey: key)
            #expect(
                try sampled.value(forKey: key) == defaults.value(forKey: key),
                "the sample sets \(key) to \(value), not its default")
        }
    }
}
