import Foundation
import TestSupport
import Testing

@testable import TerminalMarkdown

/// llmster's loop over source-highlight's rules, which searches a rule again only once the line has moved past its
/// last match, colours every line exactly as source-highlight's own loop does (on definitions loaded apart, which
/// llmster's loop never touches): the same spans, kinds and lexer state, for every definition source-highlight's
/// `lang.map` names and every one llmster ships, on hand-written lines and on generated token soup that glues keywords
/// to names, opens and closes strings and comments across lines, puts control characters in a token's prefix, and
/// starts tokens where a word boundary depends on the character before; two highlighters of one language take turns,
/// as two code blocks on two threads do. llmster's loop searches with PCRE2 (boost where a line holds a character boost
/// takes as a line separator), source-highlight's with boost.
struct HighlightLoopTests {
    /// One name for each definition: the first `lang.map` names for it, then llmster's own (`share/highlight`).
    static let languages: [String] = {
        var named: [String: String] = [:]
        let map = (try? String(contentsOfFile: "/usr/share/source-highlight/lang.map", encoding: .utf8)) ?? ""
        for line in map.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: "=").map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, named[parts[1]] == nil { named[parts[1]] = parts[0] }
        }
        let bundled = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("share/highlight")
        let own = ((try? FileManager.default.contentsOfDirectory(atPath: bundled.path)) ?? [])
            .filter { $0.hasSuffix(".lang") }.map { String($0.dropLast(5)) }
        return named.values.sorted() + own.sorted()
    }()

    static let lines = [
        "def section_1(): return 1 * 2  # comment",
        "xdef ifx _if if_ elif: pass; classy class Foo(Bar): ...",
        "s = 'it\\'s' + \"a \\\"quote\\\"\" + r'raw\\' + f\"{x!r:>10}\"",
        "/* open comment", "still inside */ int x = 0x1F + 1e10 + .5f; // tail",
        "\"\"\"doc string", "continues\"\"\" + '''other'''",
        "let re = /ab+c/gi; const t = `tmpl ${a + `nested`}`;",
        "fn main() { let r = br\"bytes\"; let s = r#\"raw\"#; 'a'; b'x'; }",
        "cat <<EOF > file", "  $HOME ${var:-x} $(cmd) `old` \\$esc", "EOF",
        "#include <stdio.h>", "#define MAX(a, b) ((a) > (b) ? (a) : (b))",
        "SELECT a.b, COUNT(*) FROM t WHERE x = 'y' -- note", "<!-- c --><a href=\"x\">t</a><br/>&amp;",
        "@media (max-width: 600px) { .a:hover { color: #FFF; } }",
        "{\"k\": [1, 2.5e-3, true, null], \"s\": \"\\u00e9\"}",
        "key: value # c", "- item: 'q' \"d\" &anchor *ref !!tag",
        "[section] k = \"v\" n = 1_000 d = 2024-01-01T00:00:00Z",
        "+added line", "-removed line", "@@ -1,3 +1,4 @@", "FROM debian:12 AS build", "RUN apt-get install -y x \\",
        "local function f(...) return #t end --[[ long", "comment ]] x = [[str]]",
        "main = do { putStrLn \"hi\"; let x = 'c' } -- c {- block -}", "apply(M, F, A) -> io:format(\"~p~n\", [A]).",
        "\\begin{document} % comment $x^2$ \\end{document}", "all: dep ; $(CC) -o $@ $< # c",
        "GET /path HTTP/1.1", "Content-Type: text/plain",
        "", "   ", "\t\tindented\ttabs", "é ü 日本語 🙂 mixed bytes", "if(if)if if", "x+=1;y-=2;z*=3",
        "trailing backslash \\", "\"unterminated", "'", "/*", "*/", "#", "//"
    ]

    /// Tokens the soup is made of: keywords of many languages, names that contain them, quotes, comment and
    /// string delimiters, numbers and punctuation.
    static let tokens = [
        "if", "xif", "if_", "def", "class", "return", "fn", "let", "const", "var", "int", "void", "SELECT", "from",
        "import", "true", "null", "self", "this", "end", "do", "begin", "x", "_", "a1", "0x1F", "42", "3.14", "1e-3",
        "\"", "'", "`", "\\", "\"\"\"", "/*", "*/", "//", "#", "--", "<!--", "-->", "${", "}", "$", "@", "(", ")", "[",
        "]", "{", "<", ">", "/", "*", "=", ",", ";", ":", ".", "r\"", "b'", "<<", "%", "&", "é", " ", " ", " ", "\t",
        "\r", "\u{0B}", "\u{0C}"
    ]

    /// Deterministic token soup: `count` lines from `seed`, every fifth one long.
    static func soup(seed: UInt64, count: Int) -> [String] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { index in
            (0..<Int.random(in: 0..<(index % 5 == 0 ? 90 : 24), using: &generator))
                .map { _ in tokens.randomElement(using: &generator)! }
                .joined(separator: Bool.random(using: &generator) ? " " : "")
        }
    }

    /// Each line's spans from two highlighters taking turns (even lines to one, odd to the other), committing every
    /// line and previewing every third one first, as a stream does.
    static func highlight(_ lines: [String], language: String, sourceHighlightMatching: Bool) throws -> [[String]] {
        let pair = try [0, 1].map { _ in
            try #require(CodeHighlighter(language: language, sourceHighlightMatching: sourceHighlightMatching))
        }
        if !sourceHighlightMatching { #expect(pair.allSatisfy { $0.usesOwnLoop }) }
        return lines.enumerated().flatMap { index, line in
            let highlighter = pair[index % 2]
            let preview = index % 3 == 0 ? [highlighter.byteSpans(line, advance: false)] : []
            let bytes = Array(line.utf8)
            return (preview + [highlighter.byteSpans(line, advance: true)]).map { spans in
                spans.map { "\($0.kind):\(String(decoding: bytes[$0.bytes], as: UTF8.self))" }
            }
        }
    }

    @Test(arguments: languages)
    func llmstersLoopColoursAsSourceHighlightDoes(language: String) throws {
        let seed = language.utf8.reduce(UInt64(0)) { $0 &* 31 &+ UInt64($1) }
        let text = Self.lines + Self.soup(seed: seed, count: 400)
        let expected = try Self.highlight(text, language: language, sourceHighlightMatching: true)
        let actual = try Self.highlight(text, language: language, sourceHighlightMatching: false)
        for (index, (expected, actual)) in zip(expected, actual).enumerated() where expected != actual {
            Issue.record("\(language) line \(index): \(actual) ≠ \(expected)")
            break
        }
    }

    /// Long lines cost in proportion to their length: a rule with a one-character lookbehind (erl's `(?<!_)`,
    /// rust's `(?<!r)`) remembers its search as one with `\b` does, where it was searched through the rest of the line
    /// after every token (16 KiB of erl's `${a} $(b) ` went through 77 MB of searching, 3 s). The lines are coloured
    /// to their end.
    @Test(arguments: [("erl", "${a} $(b) "), ("rust", "0x0b, "), ("python", "x = 1; ")])
    func aLongLinesSearchesGrowWithItsLength(language: String, unit: String) throws {
        let highlighter = try #require(CodeHighlighter(language: language))
        let line = String(repeating: unit, count: (16 << 10) / unit.utf8.count)
        let spans = highlighter.byteSpans(line, advance: true)
        #expect(
            highlighter.searchedBytes < 64 * line.utf8.count,
            "\(highlighter.searchedBytes) bytes searched for a line of \(line.utf8.count)")
        let lastColoured = spans.filter { $0.kind != .plain }.map(\.bytes.upperBound).max() ?? 0
        #expect(lastColoured > line.utf8.count - unit.utf8.count, "coloured up to \(lastColoured)")
    }

    /// A long word is coloured as a short one is, and soon: erl's function rule `\w+(\s+)?[:@]?(\s+)?\w+(?=…)` tries
    /// every split of a word that no `(` follows, so PCRE2 stops it at its match limit and it finds nothing there. Handed
    /// to boost instead, it took 0.6 s on 4 KiB of letters, and 16 KiB of digits came back plain (boost threw).
    @Test(arguments: ["a", "0"])
    func aLongWordStopsTheRulesThatWouldSplitItEveryWay(unit: String) throws {
        let short = try #require(CodeHighlighter(language: "erl")).byteSpans(unit + unit, advance: true)
        let highlighter = try #require(CodeHighlighter(language: "erl"))
        let spans = highlighter.byteSpans(String(repeating: unit, count: 16 << 10), advance: true)
        #expect(highlighter.stoppedSearches > 0, "no search was stopped")
        #expect(spans.map(\.kind) == short.map(\.kind), "\(spans.map(\.kind)) against \(short.map(\.kind))")
    }

    /// Highlighting's speed rests on PCRE2 searching in boost's place (a rule it cannot take, an escape the two read
    /// differently, would be searched by boost): it does for every rule of every definition, and the comparison above
    /// shows the colours are still source-highlight's.
    @Test func pcre2SearchesTheRulesOfEveryDefinition() throws {
        for language in Self.languages {
            let rules = try #require(CodeHighlighter(language: language)).pcre2Rules
            #expect(rules.all > 0 && rules.pcre2 == rules.all, "\(language): \(rules.pcre2) of \(rules.all) rules")
        }
    }

    @Test func everyDefinitionIsCompared() {
        #expect(Self.languages.count > 80)
        #expect(Self.languages.contains("python") && Self.languages.contains("swift"))
    }

    @Test func theSampleLinesAreColouredAtAll() throws {
        let spans = try Self.highlight(Self.lines, language: "python", sourceHighlightMatching: false)
        #expect(spans.contains { $0.contains { $0.hasPrefix("keyword:") } })
        #expect(spans.contains { $0.contains { $0.hasPrefix("string:") } })
    }
}
