internal import CSourceHighlight
import SystemSupport

/// Colours code one line at a time with GNU source-highlight, carrying the lexer state (an open comment or
/// multi-line string) from each committed line to the next.
///
/// Owns one source-highlight handle for one code block; confined to one thread or actor like the stream that
/// owns it (not `Sendable`). A line the library cannot highlight comes back as one plain run.
final class CodeHighlighter {
    /// What a stretch of code is, as far as the theme cares.
    enum Kind: Int, CaseIterable {
        case plain, keyword, type, string, comment, number, preprocessor, function, variable, special, inserted, deleted
    }

    private let handle: OpaquePointer

    /// A highlighter for the first word of a fence's info string, or nil when neither source-highlight nor
    /// llmster's own definitions (`share/highlight`) know the language (the block is then shown plain).
    /// `sourceHighlightMatching` runs source-highlight's own matching loop instead of llmster's, which searches each
    /// rule again only once the line has moved past its last match; the spans are the same, which tests show with it.
    init?(language: String, sourceHighlightMatching: Bool = false) {
        guard !language.isEmpty, language.utf8.count <= 64, !language.utf8.contains(0),
            let handle = Self.bundledDefinitions.withUnsafeBufferPointer({ directory in
                llmster_highlighter_create(
                    language, directory.isEmpty ? nil : directory.baseAddress, sourceHighlightMatching ? 1 : 0)
            })
        else { return nil }
        self.handle = handle
    }

    /// Whether lines go through llmster's loop (source-highlight's when it was asked for, or for a definition with
    /// rules of a kind the loop does not know).
    var usesOwnLoop: Bool { llmster_highlighter_uses_own_loop(handle) != 0 }

    /// How many of the language's rules PCRE2 searches (with its JIT, several times faster than boost on lines of
    /// code) out of how many; the rest, and lines holding a character boost takes as a line separator, boost searches.
    var pcre2Rules: (pcre2: Int, all: Int) {
        var pcre2 = 0
        var all = 0
        guard llmster_highlighter_pcre2_rules(handle, &pcre2, &all) == 0 else { return (0, 0) }
        return (pcre2, all)
    }

    /// The bytes the rule searches of the last line went through in llmster's loop (each from its start to its match
    /// or the line's end): what a line costs, in proportion to its length when every rule remembers its search.
    var searchedBytes: Int {
        var bytes = 0
        guard llmster_highlighter_searched_bytes(handle, &bytes) == 0 else { return 0 }
        return bytes
    }

    /// The searches of the last line that PCRE2 stopped at its match limit, each taken as finding nothing: a rule such as
    /// erl's `\w+(\s+)?[:@]?(\s+)?\w+(?=…)` tries every split of a long word and would search it for seconds.
    var stoppedSearches: Int {
        var searches = 0
        guard llmster_highlighter_stopped_searches(handle, &searches) == 0 else { return 0 }
        return searches
    }

    deinit { llmster_highlighter_destroy(handle) }

    /// The directory of the language definitions llmster ships for languages source-highlight lacks, as a C string
    /// made once (empty when there is none: each block's highlighter is handed a null pointer then).
    private static let bundledDefinitions = BundledFiles.path("highlight").map { Array($0.utf8CString) } ?? []

    /// The stretches of `line` (no newline) and their kinds, as ranges of its UTF-8 bytes that start and end between
    /// scalars (a line is styled from its own bytes, without a string per stretch); `advance` false previews a line
    /// that is still growing without moving the lexer past it.
    func byteSpans(_ line: String, advance: Bool) -> [(bytes: Range<Int>, kind: Kind)] {
        var line = line
        return line.withUTF8 { bytes -> [(bytes: Range<Int>, kind: Kind)] in
            var spans: UnsafePointer<llmster_highlight_span>?
            var count = 0
            // The C side reads exactly `bytes.count` bytes and keeps no pointer past the call.
            let status = llmster_highlighter_line(
                handle, bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                bytes.count, advance ? 1 : 0, &spans, &count)
            let whole = [(bytes: 0..<bytes.count, kind: Kind.plain)]
            guard status == 0, let spans, count > 0 else { return whole }
            // The span array belongs to the handle and stays valid until the next call; it is copied out here.
            let buffer = UnsafeBufferPointer(start: spans, count: count)
            // The lexer works on bytes; a boundary inside a UTF-8 sequence would corrupt the character.
            guard buffer.allSatisfy({ $0.offset == 0 || $0.offset >= bytes.count || bytes[$0.offset] & 0xC0 != 0x80 })
            else {
                return whole
            }
            return buffer.map { span in
                (span.offset..<span.offset + span.length, Kind(rawValue: Int(span.kind.rawValue)) ?? .plain)
            }
        }
    }
}
