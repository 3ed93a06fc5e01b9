// GNU source-highlight behind the C API of CSourceHighlight.h; see the header for ownership and threads.
#include "CSourceHighlight.h"

#include <srchilite/formattermanager.h>
#include <srchilite/formatterparams.h>
#include <srchilite/instances.h>
#include <srchilite/langdefmanager.h>
#include <srchilite/highlightstate.h>
#include <srchilite/highlighttoken.h>
#include <srchilite/langmap.h>
#include <srchilite/matchingparameters.h>
#include <srchilite/regexhighlightrule.h>
#include <srchilite/regexpreprocessor.h>
#include <srchilite/regexrulefactory.h>
#include <srchilite/sourcehighlighter.h>

#include <boost/regex.hpp>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

// Guards source-highlight's global language map and definition cache (Instances), shared by every handle, and the
// searches the definitions' rules remember (ReusingRegexRule, currentLine), which every handle of a language shares:
// it is held for the whole of a line. Never destroyed: holdLibraryAtExit keeps it locked while exit destroys static
// objects.
std::mutex &libraryLock() {
    static std::mutex *lock = new std::mutex;
    return *lock;
}

// From the start of exit on, holds the library lock, so that no thread is inside source-highlight (or boost's regex
// caches) while exit destroys their static objects: a reply still rendering on another thread when llmster exits
// (Ctrl-C during a long reply) would use them freed, and once crashed in malloc. Registered after the first line was
// highlighted, when those objects (boost's are made by the first match) exist, so it runs before their destructors
// (exit runs handlers in reverse order).
void holdLibraryAtExit() {
    static std::once_flag once;
    std::call_once(once, [] { std::atexit([] { libraryLock().lock(); }); });
}

// Counts the lines highlighted, so that a rule's remembered search is used only on the line it was made on (a new
// line may reuse the old one's memory). Guarded by libraryLock().
unsigned long currentLine = 0;

struct ElementKind {
    std::string_view element;
    llmster_token_kind kind;
};

// source-highlight's element names (see its default.style) and the kind each is coloured as.
const ElementKind elementKinds[] = {
    {"keyword", LLMSTER_TOKEN_KEYWORD},     {"type", LLMSTER_TOKEN_TYPE},
    {"usertype", LLMSTER_TOKEN_TYPE},       {"classname", LLMSTER_TOKEN_TYPE},
    {"string", LLMSTER_TOKEN_STRING},       {"regexp", LLMSTER_TOKEN_STRING},
    {"comment", LLMSTER_TOKEN_COMMENT},     {"todo", LLMSTER_TOKEN_COMMENT},
    {"number", LLMSTER_TOKEN_NUMBER},       {"preproc", LLMSTER_TOKEN_PREPROCESSOR},
    {"function", LLMSTER_TOKEN_FUNCTION},   {"variable", LLMSTER_TOKEN_VARIABLE},
    {"specialchar", LLMSTER_TOKEN_SPECIAL}, {"label", LLMSTER_TOKEN_PREPROCESSOR},
    {"newfile", LLMSTER_TOKEN_INSERTED},    {"oldfile", LLMSTER_TOKEN_DELETED},
    {"difflines", LLMSTER_TOKEN_PREPROCESSOR},
};

// The kind `element` is coloured as: plain for an element the table does not name, as source-highlight's
// FormatterManager gives such an element its default formatter.
llmster_token_kind elementKind(const std::string &element) {
    for (const auto &entry : elementKinds) {
        if (std::string_view(element) == entry.element) return entry.kind;
    }
    return LLMSTER_TOKEN_PLAIN;
}

// Appends `length` bytes of `kind` to `spans`, joining them to the last span when it is of the same kind.
void appendSpan(std::vector<llmster_highlight_span> &spans, llmster_token_kind kind, size_t length) {
    if (length == 0) return;
    if (!spans.empty() && spans.back().kind == kind) {
        spans.back().length += length;
    } else {
        size_t offset = spans.empty() ? 0 : spans.back().offset + spans.back().length;
        spans.push_back({offset, length, kind});
    }
}

// What a search found: where each group of the expression matched in the line, as boost::smatch says it (group 0
// the whole match; a group that took no part is not `matched`). Filled from boost or from PCRE2.
struct Found {
    struct Group {
        std::string::const_iterator first, second;
        bool matched = false;
        size_t length() const { return matched ? static_cast<size_t>(second - first) : 0; }
    };
    std::vector<Group> groups;

    const Group &operator[](size_t group) const { return groups[group]; }
    size_t size() const { return groups.size(); }

    void assign(const boost::smatch &match) {
        groups.resize(match.size());
        for (size_t group = 0; group < match.size(); ++group) {
            groups[group] = {match[group].first, match[group].second, match[group].matched};
        }
    }
};

// What the searches of a line cost: the bytes each went through (from its start to its match, or the line's end) and
// the searches PCRE2 stopped at its match limit.
struct SearchCost {
    size_t bytes = 0;
    size_t stopped = 0;
};

// The boost expression `text` written for PCRE2, or nothing when it uses what the two may read differently. Boost's
// word anchors \< and \> become \b with a look-ahead or look-behind at a word character; every other escape must be
// one both read alike (a character class, a boundary, a control character, a back reference, a hex code, escaped
// punctuation), or the expression stays with boost: \` and \' (buffer anchors in boost, quotes in PCRE2), \Q, \v,
// \h, \p and the like. Bracket expressions are copied as they are, with the same rule for escapes inside them
// (PCRE2 refuses a POSIX class or collating element it does not know, which also leaves the rule to boost); the one
// class the two fill differently in the C locale, [:blank:], gets boost's vertical tab added.
std::optional<std::string> pcreExpression(const std::string &text) {
    if (text.find("(*") != std::string::npos) return std::nullopt;
    auto sameEscape = [](char character, bool inBrackets) {
        if (std::string_view("dDwWsStnrfx").find(character) != std::string_view::npos) return true;
        if (!inBrackets && std::string_view("bBAz123456789").find(character) != std::string_view::npos) return true;
        return std::ispunct(static_cast<unsigned char>(character)) && character != '\'' && character != '`' &&
               character != '<' && character != '>';
    };
    std::string written;
    written.reserve(text.size() + 16);
    bool inBrackets = false;
    for (size_t index = 0; index < text.size(); ++index) {
        char character = text[index];
        if (character == '\\') {
            if (index + 1 == text.size()) return std::nullopt;
            char escaped = text[++index];
            if (!inBrackets && escaped == '<') {
                written += "\\b(?=\\w)";
            } else if (!inBrackets && escaped == '>') {
                written += "\\b(?<=\\w)";
            } else if (sameEscape(escaped, inBrackets)) {
                written += character;
                written += escaped;
            } else {
                return std::nullopt;
            }
            continue;
        }
        written += character;
        if (!inBrackets && character == '[') {
            inBrackets = true;
            // A ']' first (after an optional '^') is a member, not the end.
            if (index + 1 < text.size() && text[index + 1] == '^') written += text[++index];
            if (index + 1 < text.size() && text[index + 1] == ']') written += text[++index];
        } else if (inBrackets && character == '[' && index + 1 < text.size() &&
                   std::string_view(":=.").find(text[index + 1]) != std::string_view::npos) {
            // A POSIX class or collating element, copied up to its closing ":]", "=]" or ".]".
            char kind = text[index + 1];
            size_t close = text.find(std::string{kind, ']'}, index + 2);
            if (close == std::string::npos) return std::nullopt;
            std::string item = text.substr(index + 1, close + 2 - (index + 1));
            written += item;
            // Boost's blank class also holds the vertical tab (its blanks are spaces that separate no lines).
            if (item == ":blank:]") written += "\\x0b";
            index = close + 1;
        } else if (inBrackets && character == ']') {
            inBrackets = false;
        }
    }
    if (inBrackets) return std::nullopt;
    return written;
}

// A boost expression compiled by PCRE2 with its JIT, which searches the short lines of code several times faster
// than boost's matcher: searched as boost searches it (the text from the search's start, with no character before it
// visible; ^ and $ at the text's ends, ^ not at its start after the line's first token). Only for lines without a
// character that boost takes as a line separator and PCRE2 does not (\n, \r, \f), and only when both count the
// same groups. A search that outgrows PCRE2's JIT stack is left to boost; one past its match limit finds nothing (see
// `search`). The search at
// one position does without PCRE2's start-up checks: the one for a character every match needs scans the rest of the
// line, which made a 64 KiB line quadratic (0.125 s against boost's 0.025 s).
class PcrePattern {
public:
    // The pattern for `expression` (boost's compiled `boostExpression`), or nullptr when it stays with boost.
    static std::shared_ptr<PcrePattern> make(const std::string &expression, const boost::regex &boostExpression) {
        auto written = pcreExpression(expression);
        if (!written) return nullptr;
        std::shared_ptr<PcrePattern> pattern(new PcrePattern());
        const std::pair<pcre2_code **, uint32_t> variants[] = {
            {&pattern->anywhere, 0u}, {&pattern->atStart, PCRE2_ANCHORED | PCRE2_NO_START_OPTIMIZE}};
        for (auto [code, options] : variants) {
            int error = 0;
            PCRE2_SIZE offset = 0;
            *code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(written->data()), written->size(),
                                  PCRE2_MULTILINE | PCRE2_DOTALL | options, &error, &offset, nullptr);
            if (*code == nullptr || pcre2_jit_compile(*code, PCRE2_JIT_COMPLETE) != 0) return nullptr;
        }
        uint32_t captures = 0;
        pcre2_pattern_info(pattern->anywhere, PCRE2_INFO_CAPTURECOUNT, &captures);
        if (captures != boostExpression.mark_count()) return nullptr;
        pattern->matchData = pcre2_match_data_create_from_pattern(pattern->anywhere, nullptr);
        if (pattern->matchData == nullptr) return nullptr;
        return pattern;
    }

    ~PcrePattern() {
        pcre2_match_data_free(matchData);
        pcre2_code_free(anywhere);
        pcre2_code_free(atStart);
    }

    // Searches [start, end) (only at `start` when `anchored`): 1 with `found` filled, 0 for no match, 2 for a search
    // stopped at PCRE2's match limit (taken as no match), -1 when PCRE2 gave up otherwise and boost must search.
    // A search past the match limit went to boost before: a rule whose parts split one long word many ways, such as
    // erl's function rule `\w+(\s+)?[:@]?(\s+)?\w+(?=[[:blank:]]*[\(/])` on a word that no `(` follows, then took 0.6 s
    // on 4 KiB of letters, and on 16 KiB of digits boost threw and the whole line was plain. The rule remembers the
    // stopped search like any other, so it colours nothing more on that line.
    int search(std::string::const_iterator start, std::string::const_iterator end, bool beginningOfLine,
               bool anchored, Found &found) {
        const char *subject = start == end ? "" : &*start;
        int result = pcre2_jit_match(anchored ? atStart : anywhere, reinterpret_cast<PCRE2_SPTR>(subject),
                                     static_cast<PCRE2_SIZE>(end - start), 0, beginningOfLine ? 0 : PCRE2_NOTBOL,
                                     matchData, nullptr);
        if (result == PCRE2_ERROR_NOMATCH) return 0;
        if (result == PCRE2_ERROR_MATCHLIMIT) return 2;
        if (result <= 0) return -1;
        uint32_t pairs = pcre2_get_ovector_count(matchData);
        PCRE2_SIZE *offsets = pcre2_get_ovector_pointer(matchData);
        found.groups.resize(pairs);
        for (uint32_t group = 0; group < pairs; ++group) {
            bool matched = group < static_cast<uint32_t>(result) && offsets[2 * group] != PCRE2_UNSET;
            found.groups[group] = matched ? Found::Group{start + static_cast<std::ptrdiff_t>(offsets[2 * group]),
                                                         start + static_cast<std::ptrdiff_t>(offsets[2 * group + 1]),
                                                         true}
                                          : Found::Group{end, end, false};
        }
        return 1;
    }

private:
    PcrePattern() = default;


    pcre2_code *anywhere = nullptr;
    pcre2_code *atStart = nullptr;
    pcre2_match_data *matchData = nullptr;
};

// A regex rule of source-highlight that remembers its last search on the current line, for highlightLine.
// source-highlight asks every rule of the state for its leftmost match after each token, so a line of n tokens
// searched the rest of the line n times per rule; this rule answers later questions from its last search when they
// have the same answer, and searches again only once the line has moved past the match it found. Its tryToMatch is
// source-highlight's own rule's.
//
// Why the answer is the same: a search from `start` finds the leftmost position at or after it where the expression
// matches. Every position after `start` is matched exactly as in the remembered search from an earlier start (the
// characters before it are visible to \b and look-behind in both; match_not_bol only concerns the first position).
// Only the position `start` itself differs, where the new search sees the beginning of its text. So: a match that
// begins exactly at `start` (tried alone, with the new search's flags) is the answer; otherwise the remembered match
// is, when it begins after `start`, and "none" is when the remembered search found none. Expressions with a
// look-behind (which could look past a later start), an anchor at the search's own start (\G), a reset of the match
// start (\K) or a backtracking verb ((*SKIP), (*COMMIT): they move where a search resumes) are searched afresh every
// time. One difference remains: boost gives up on an expression that backtracks too much by a budget that grows with
// the text searched, so a remembered search from an earlier start may finish where source-highlight's later, shorter
// one gives up (the line is then shown plain); never the other way round.
class ReusingRegexRule : public srchilite::HighlightRule {
public:
    explicit ReusingRegexRule(srchilite::HighlightRulePtr original)
        : srchilite::HighlightRule(*original), original(original), expression(original->toString()),
          pcre(PcrePattern::make(original->toString(), expression)),
          reusable(reusableExpression(original->toString())),
          contextFree(reusable && contextFreeExpression(original->toString())) {
        for (const auto &element : getElemList()) kindsOfElements.push_back(elementKind(element));
    }

    bool tryToMatch(std::string::const_iterator start, std::string::const_iterator end, srchilite::HighlightToken &token,
                    const srchilite::MatchingParameters &params) override {
        return original->tryToMatch(start, end, token, params);
    }

    const std::string toString() const override { return original->toString(); }

    void replaceReferences(const srchilite::ReplacementList &replacements) override {
        original->replaceReferences(replacements);
        expression.assign(original->toString());
        pcre = PcrePattern::make(original->toString(), expression);
        reusable = reusableExpression(original->toString());
        contextFree = reusable && contextFreeExpression(original->toString());
        line = 0;
    }

    srchilite::HighlightRule *clone() override {
        std::unique_ptr<ReusingRegexRule> copy(new ReusingRegexRule(*this));
        copy->original.reset(original->clone());
        copy->line = 0;
        return copy.release();
    }

    // The leftmost match at or after `start`, as tryToMatch's search finds it, or nullptr; valid until this rule's
    // next search. `plainLine`: the line has no character boost takes as a line separator, so PCRE2 may search it.
    // Adds to `cost` the bytes a search of the rest of the line went through (up to its match, or to the end), and
    // the searches stopped at PCRE2's match limit.
    const Found *search(std::string::const_iterator start, std::string::const_iterator end, bool beginningOfLine,
                        bool plainLine, SearchCost &cost) {
        bool sameSearch = line == currentLine && searchEnd == end && searchStart == start &&
                          searchBeginningOfLine == beginningOfLine;
        if (!sameSearch) {
            bool later = reusable && line == currentLine && searchEnd == end && searchStart < start &&
                         (!found || match[0].first > start);
            if (!later) {
                found = mayBeginIn(start, end) &&
                        searchFrom(start, end, beginningOfLine, false, plainLine, match, cost.stopped);
                cost.bytes += static_cast<size_t>((found ? match[0].first : end) - start);
            } else if (contextFree) {
                // What the earlier search found (or that it found nothing) is the answer from here too.
            } else if (mayBeginAt(start, end) &&
                       searchFrom(start, end, beginningOfLine, true, plainLine, here, cost.stopped)) {
                std::swap(match, here);
                found = true;
            }
            line = currentLine;
            searchStart = start;
            searchEnd = end;
            searchBeginningOfLine = beginningOfLine;
        }
        return found ? &match : nullptr;
    }

    // How many characters a token of `found` covers (source-highlight's matchedSize): the whole match, or for a rule
    // of several elements the groups that matched.
    size_t matchedSize(const Found &found) const {
        if (getElemList().size() <= 1) return found[0].length();
        size_t size = 0;
        for (size_t group = 1; group < found.size(); ++group) size += found[group].length();
        return size;
    }

    // Whether PCRE2 searches for this rule on lines without a line separator.
    bool searchedByPcre() const { return pcre != nullptr; }

    // The kind of each of the rule's elements, in the order of getElemList().
    const std::vector<llmster_token_kind> &kinds() const { return kindsOfElements; }

private:
    srchilite::HighlightRulePtr original;
    boost::regex expression;
    /// The expression for PCRE2, which searches in its place where it may; nullptr where boost alone searches.
    std::shared_ptr<PcrePattern> pcre;
    bool reusable;
    /// Whether a match at a position never depends on where the search began (`contextFreeExpression`): a later
    /// search of the line is answered from the earlier one alone, without trying the new start.
    bool contextFree;
    std::vector<llmster_token_kind> kindsOfElements;

    // The remembered search: on which line, from where to where with which flags, and what it found; `here` is the
    // scratch space of the one-position search.
    unsigned long line = 0;
    std::string::const_iterator searchStart, searchEnd;
    bool searchBeginningOfLine = true;
    bool found = false;
    Found match, here;
    boost::smatch boostMatch;

    // Searches [start, end) (only at `start` when `anchored`) with PCRE2 where it may and boost otherwise, filling
    // `into`; whether it found a match. A search stopped at PCRE2's match limit finds none and adds one to `stopped`.
    bool searchFrom(std::string::const_iterator start, std::string::const_iterator end, bool beginningOfLine,
                    bool anchored, bool plainLine, Found &into, size_t &stopped) {
        if (pcre && plainLine) {
            int result = pcre->search(start, end, beginningOfLine, anchored, into);
            if (result == 2) ++stopped;
            if (result >= 0) return result == 1;
        }
        boost::match_flag_type flags = beginningOfLine ? boost::match_default : boost::match_not_bol;
        if (anchored) flags |= boost::match_continuous;
        if (!boost::regex_search(start, end, boostMatch, expression, flags)) return false;
        into.assign(boostMatch);
        return true;
    }

    // Whether a match could begin at `start`, by the expression's map of first characters (what boost's own search
    // skips positions by): most rules cannot begin at most tokens, and this spares trying them there. The map and
    // its mask are boost 1.74's (Debian 12's libboost-regex-dev).
    bool mayBeginAt(std::string::const_iterator start, std::string::const_iterator end) const {
        return start == end ? expression.can_be_null() : mayBeginWith(*start);
    }

    // Whether a match could begin anywhere in [start, end), by the same map: a rule for strings, comments or
    // numbers is not searched at all on the many lines without a character that could start one.
    bool mayBeginIn(std::string::const_iterator start, std::string::const_iterator end) const {
        return expression.can_be_null() ||
               std::any_of(start, end, [this](char character) { return mayBeginWith(character); });
    }

    bool mayBeginWith(char character) const {
        return (expression.get_map()[static_cast<unsigned char>(character)] & boost::BOOST_REGEX_DETAIL_NS::mask_any) != 0;
    }

    // Whether an expression matches at a position the same whatever the search's start: no anchor or assertion that
    // looks at the search's start or before it (^ outside a bracket expression, \b \B \< \> \A \G \` and
    // lookbehind). Then a search from a later start finds what the earlier one found past it, and nothing where it
    // found nothing: trying each new start again (a rule such as properties' `([^="+]+)…(\+?=)` runs to the end of a
    // line without `=` from every one) made a long line cost its square.
    static bool contextFreeExpression(const std::string &text) {
        for (size_t index = 0; index < text.size(); ++index) {
            char character = text[index];
            if (character == '\\') {
                if (++index == text.size()) return false;
                if (std::string_view("bB<>AG`Q").find(text[index]) != std::string_view::npos) return false;
            } else if (character == '[') {
                index = bracketEnd(text, index);
                if (index > text.size()) return false;
                --index;  // on the closing ], which the loop steps past
            } else if (character == '^' || text.compare(index, 3, "(?<") == 0) {
                return false;
            }
        }
        return true;
    }

    // Whether a search from a later start may be answered from an earlier one once the new start itself has been
    // tried: nothing in the expression looks further back than one character before a position (a lookbehind of one
    // character, class or escape, as every definition's are: erl's (?<!_), rust's (?<!r), vim's (?<=\s); and \b).
    // A named group, \G, \K or a verb refuse it, and so does a longer lookbehind.
    static bool reusableExpression(const std::string &text) {
        for (const char *construct : {"\\G", "\\K", "(*"}) {
            if (text.find(construct) != std::string::npos) return false;
        }
        for (size_t at = text.find("(?<"); at != std::string::npos; at = text.find("(?<", at + 1)) {
            if (at + 3 >= text.size() || (text[at + 3] != '=' && text[at + 3] != '!')) return false;
            size_t close = atomEnd(text, at + 4);
            if (close >= text.size() || text[close] != ')') return false;
        }
        return true;
    }

    // Where the single character, escape or bracket expression at `index` ends (past the text when it is none).
    static size_t atomEnd(const std::string &text, size_t index) {
        if (index >= text.size()) return text.size() + 1;
        char character = text[index];
        if (character == '\\') return index + 2;
        if (std::string_view("()|*+?{").find(character) != std::string_view::npos) return text.size() + 1;
        return character == '[' ? bracketEnd(text, index) : index + 1;
    }

    // Where the bracket expression opening at `index` ends (just past its "]"; past the text when it does not end).
    // A leading ^ negates, a "]" right after "[" or "[^" is a literal, and a POSIX class or collating element runs to
    // its ":]", "=]" or ".]".
    static size_t bracketEnd(const std::string &text, size_t index) {
        size_t position = index + 1;
        if (position < text.size() && text[position] == '^') ++position;
        if (position < text.size() && text[position] == ']') ++position;
        while (position < text.size() && text[position] != ']') {
            if (text[position] == '\\') {
                position += 2;
            } else if (text[position] == '[' && position + 1 < text.size() &&
                       std::string_view(":=.").find(text[position + 1]) != std::string_view::npos) {
                size_t closing = text.find(std::string(1, text[position + 1]) + "]", position + 2);
                if (closing == std::string::npos) return text.size() + 1;
                position = closing + 2;
            } else {
                ++position;
            }
        }
        return position < text.size() ? position + 1 : text.size() + 1;
    }
};

// Replaces every regex rule reachable from `state` by a ReusingRegexRule, once per state (the states are
// source-highlight's cached definitions, shared by every handle). Whether every rule reachable is now one.
bool reuseSearchesIn(const srchilite::HighlightStatePtr &state, std::set<const srchilite::HighlightState *> &seen) {
    if (!state || !seen.insert(state.get()).second) return true;
    bool all = true;
    const srchilite::RuleList &rules = state->getRuleList();
    for (srchilite::RuleList::size_type index = 0; index < rules.size(); ++index) {
        srchilite::HighlightRulePtr rule = rules[index];
        if (dynamic_cast<srchilite::RegexHighlightRule *>(rule.get()) != nullptr) {
            state->replaceRule(index, srchilite::HighlightRulePtr(new ReusingRegexRule(rule)));
        } else if (dynamic_cast<ReusingRegexRule *>(rule.get()) == nullptr) {
            all = false;
        }
        all = reuseSearchesIn(rule->getNextState(), seen) && all;
    }
    return all;
}

// Counts the rules reachable from `state` (each state once) and those of them PCRE2 searches.
void countPcreRules(const srchilite::HighlightStatePtr &state, std::set<const srchilite::HighlightState *> &seen,
                    size_t &pcre2, size_t &rules) {
    if (!state || !seen.insert(state.get()).second) return;
    for (const auto &rule : state->getRuleList()) {
        ++rules;
        if (auto reusing = dynamic_cast<const ReusingRegexRule *>(rule.get()); reusing && reusing->searchedByPcre()) {
            ++pcre2;
        }
        countPcreRules(rule->getNextState(), seen, pcre2, rules);
    }
}

// Whether [start, end) is only blanks, as source-highlight's "[[:blank:]]*" test of a token's prefix says: spaces and
// tabs are blanks and other printable ASCII is not, in every locale, so only text with other bytes is asked of the
// expression. It is compiled at its first use where source-highlight's is compiled when the library loads; the two
// agree unless the global C++ locale changes in between, which llmster never does.
bool onlyBlanks(std::string::const_iterator start, std::string::const_iterator end) {
    // Never destroyed, like the library lock: a thread may still be highlighting while exit destroys static objects.
    static const boost::regex *blanks = new boost::regex("[[:blank:]]*");
    bool undecided = false;
    for (auto character = start; character != end; ++character) {
        auto byte = static_cast<unsigned char>(*character);
        if (byte > 0x20 && byte < 0x7F) return false;
        if (byte != ' ' && byte != '\t') undecided = true;
    }
    return !undecided || boost::regex_match(start, end, *blanks);
}

// Highlights `line` as SourceHighlighter::highlightParagraph does (the same tokens, states and formatted texts), for
// states whose rules are all ReusingRegexRule: searches are answered from the rules' memory, and only the best
// rule's match becomes spans (source-highlight builds a token of strings for every rule that matches, and formats
// each string by looking its element's formatter up by name), appended to `spans` as SpanFormatter appends them.
// Where source-highlight's behaviour is undefined it does something safe instead: a rule that exits more states
// than are open exits them all (source-highlight pops an empty stack), and groups past the rule's elements are not
// formatted (source-highlight reads past its element list).
void highlightLine(srchilite::SourceHighlighter &lexer, const std::string &line,
                   std::vector<llmster_highlight_span> &spans, SearchCost &cost) {
    auto format = [&](llmster_token_kind kind, std::string::const_iterator from, std::string::const_iterator to) {
        appendSpan(spans, kind, static_cast<size_t>(to - from));
    };
    auto start = line.begin();
    const auto end = line.end();
    const bool plainLine = line.find_first_of("\n\r\f") == std::string::npos;
    bool beginningOfLine = true;
    cost = SearchCost();
    while (true) {
        srchilite::HighlightStatePtr state = lexer.getCurrentState();
        ReusingRegexRule *best = nullptr;
        const Found *bestMatch = nullptr;
        size_t bestPrefix = 0, bestSize = 0;
        for (const auto &entry : state->getRuleList()) {
            auto rule = static_cast<ReusingRegexRule *>(entry.get());
            const Found *match = rule->search(start, end, beginningOfLine, plainLine, cost);
            if (match == nullptr) continue;
            auto prefix = static_cast<size_t>((*match)[0].first - start);
            size_t size = rule->matchedSize(*match);
            if (best == nullptr || prefix < bestPrefix || (prefix == bestPrefix && size > bestSize)) {
                best = rule;
                bestMatch = match;
                bestPrefix = prefix;
                bestSize = size;
                if (onlyBlanks(start, (*match)[0].first)) break;
            }
        }
        if (best == nullptr) {
            format(elementKind(state->getDefaultElement()), start, end);
            return;
        }
        const Found &match = *bestMatch;
        format(elementKind(state->getDefaultElement()), start, match[0].first);
        const std::vector<llmster_token_kind> &kinds = best->kinds();
        if (kinds.size() > 1) {
            for (size_t group = 1; group < match.size() && group <= kinds.size(); ++group) {
                if (match[group].matched) format(kinds[group - 1], match[group].first, match[group].second);
            }
        } else {
            format(kinds[0], match[0].first, match[0].second);
        }
        if (bestSize > 0) beginningOfLine = false;

        srchilite::HighlightStatePtr next = best->isNested() ? state : best->getNextState();
        if (next && next->getNeedsReferenceReplacement()) {
            if (next->getOriginalState()) next = next->getOriginalState();
            srchilite::ReplacementList groups;
            if (best->getHasSubexpressions()) {
                for (size_t group = 1; group < match.size(); ++group) {
                    groups.push_back(match[group].matched ? std::string(match[group].first, match[group].second) : "");
                }
            }
            srchilite::HighlightStatePtr copy(new srchilite::HighlightState(*next));
            copy->setOriginalState(next);
            copy->replaceReferences(groups);
            next = copy;
        }
        srchilite::HighlightStateStack &stack = *lexer.getStateStack();
        if (next) {
            stack.push(state);
            lexer.setCurrentState(next);
        } else if (best->getExitLevel() < 0 || (best->getExitLevel() > 0 && stack.size() < size_t(best->getExitLevel()))) {
            lexer.clearStateStack();
            lexer.setCurrentState(lexer.getMainState());
        } else if (best->getExitLevel() > 0) {
            for (int level = 1; level < best->getExitLevel(); ++level) stack.pop();
            lexer.setCurrentState(stack.top());
            stack.pop();
        }
        start += static_cast<std::string::difference_type>(bestPrefix + bestSize);
    }
}

// Receives the text of one element and appends it as a span of its kind.
class SpanFormatter : public srchilite::Formatter {
public:
    SpanFormatter(std::vector<llmster_highlight_span> &spans, llmster_token_kind kind) : spans(spans), kind(kind) {}

    void format(const std::string &text, const srchilite::FormatterParams *) override {
        appendSpan(spans, kind, text.size());
    }

private:
    std::vector<llmster_highlight_span> &spans;
    llmster_token_kind kind;
};

// Info-string words models write that lang.map lacks, and the name they go by there or in llmster's own files.
const std::pair<const char *, const char *> languageAliases[] = {
    {"ts", "javascript"}, {"typescript", "javascript"}, {"jsx", "javascript"}, {"tsx", "javascript"},
    {"rust", "rs"},       {"yml", "yaml"},              {"kt", "kotlin"},      {"kts", "kotlin"},
    {"patch", "diff"},    {"docker", "dockerfile"},     {"containerfile", "dockerfile"},
    {"zsh", "sh"},        {"fish", "sh"},
};

// The definition of `language` as a directory and a file name, {"", ""} when there is none: llmster's own
// `bundled/LANGUAGE.lang` when it ships one (for languages source-highlight lacks or colours poorly), else
// source-highlight's through lang.map.
std::pair<std::string, std::string> definition(std::string language, const char *bundled) {
    for (auto &character : language) character = static_cast<char>(std::tolower(static_cast<unsigned char>(character)));
    if (language.empty() || language == "text" || language == "plain" || language == "plaintext") return {"", ""};
    if (language == "console" || language == "shell-session") return {"", ""};
    for (const auto &alias : languageAliases) {
        if (language == alias.first) language = alias.second;
    }
    bool simpleName = std::all_of(language.begin(), language.end(),
                                  [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-'; });
    if (bundled != nullptr && simpleName && std::ifstream(std::string(bundled) + "/" + language + ".lang").good()) {
        return {bundled, language + ".lang"};
    }
    return {"", srchilite::Instances::getLangMap()->getMappedFileName(language)};
}

// `definition` remembered per language and bundled directory, so a reply with many code blocks looks for each
// definition file once rather than once per block. Guarded by libraryLock().
std::pair<std::string, std::string> cachedDefinition(const char *language, const char *bundled) {
    static std::map<std::pair<std::string, std::string>, std::pair<std::string, std::string>> cache;
    std::pair<std::string, std::string> key{language, bundled == nullptr ? "-" : std::string("+") + bundled};
    auto found = cache.find(key);
    if (found != cache.end()) return found->second;
    auto result = definition(language, bundled);
    if (cache.size() < 256) cache.emplace(std::move(key), result);
    return result;
}

}  // namespace

struct llmster_highlighter {
    /// The definition it highlights, as `cachedDefinition` gives it: the key of its pool.
    std::pair<std::string, std::string> definition;
    /// The line being highlighted, kept so that its memory serves the next line too.
    std::string text;
    std::vector<llmster_highlight_span> spans;
    std::unique_ptr<srchilite::FormatterManager> formatters;
    std::unique_ptr<srchilite::SourceHighlighter> highlighter;
    srchilite::FormatterParams params;
    /// Whether its lines go through highlightLine: its definition's rules are all ReusingRegexRule.
    bool usesOwnLoop = false;
    /// What the searches of the last line highlighted cost (llmster_highlighter_searched_bytes and _stopped_searches).
    SearchCost lastLineCost;
    /// Whether it runs source-highlight's own matching on definitions of its own (for tests); not kept in the pool.
    bool sourceHighlightMatching = false;
};

namespace {

// Highlighters given back by llmster_highlighter_destroy, a few per definition, with their lexers at the start:
// building and freeing one (its formatter map above all) took a seventh of the time spent highlighting a reply with
// a two-line code block every few hundred bytes. Guarded by libraryLock().
std::map<std::pair<std::string, std::string>, std::vector<llmster_highlighter *>> &idleHighlighters() {
    static std::map<std::pair<std::string, std::string>, std::vector<llmster_highlighter *>> pool;
    return pool;
}

const size_t idleHighlightersPerDefinition = 4;

// Language definitions loaded apart from source-highlight's shared ones, whose rules are never replaced: what
// handles made for source-highlight's own matching highlight with. Never destroyed, like the library lock.
srchilite::LangDefManager &unchangedDefinitions() {
    static srchilite::LangDefManager *manager = new srchilite::LangDefManager(new srchilite::RegexRuleFactory());
    return *manager;
}

}  // namespace

extern "C" llmster_highlighter *llmster_highlighter_create(const char *language, const char *bundled_directory,
                                                           int source_highlight_matching) {
    if (language == nullptr) return nullptr;
    try {
        std::lock_guard<std::mutex> guard(libraryLock());
        auto [directory, file] = cachedDefinition(language, bundled_directory);
        if (file.empty()) return nullptr;
        auto &idle = idleHighlighters()[{directory, file}];
        if (!idle.empty() && !source_highlight_matching) {
            llmster_highlighter *reused = idle.back();
            idle.pop_back();
            return reused;
        }
        auto manager = source_highlight_matching ? &unchangedDefinitions() : srchilite::Instances::getLangDefManager();
        auto state = directory.empty() ? manager->getHighlightState(file) : manager->getHighlightState(directory, file);
        std::unique_ptr<llmster_highlighter> handle(new llmster_highlighter());
        handle->definition = {directory, file};
        handle->sourceHighlightMatching = source_highlight_matching != 0;
        if (!source_highlight_matching) {
            std::set<const srchilite::HighlightState *> seen;
            handle->usesOwnLoop = reuseSearchesIn(state, seen);
        }
        handle->formatters.reset(new srchilite::FormatterManager(
            srchilite::FormatterPtr(new SpanFormatter(handle->spans, LLMSTER_TOKEN_PLAIN))));
        for (const auto &entry : elementKinds) {
            handle->formatters->addFormatter(std::string(entry.element),
                                             srchilite::FormatterPtr(new SpanFormatter(handle->spans, entry.kind)));
        }
        handle->highlighter.reset(new srchilite::SourceHighlighter(state));
        handle->highlighter->setFormatterManager(handle->formatters.get());
        handle->highlighter->setFormatterParams(&handle->params);
        return handle.release();
    } catch (...) {
        // A missing or malformed definition file (source-highlight throws for both) means no highlighting.
        return nullptr;
    }
}

extern "C" void llmster_highlighter_destroy(llmster_highlighter *highlighter) {
    if (highlighter == nullptr) return;
    try {
        std::lock_guard<std::mutex> guard(libraryLock());
        auto &idle = idleHighlighters()[highlighter->definition];
        if (idle.size() < idleHighlightersPerDefinition && !highlighter->sourceHighlightMatching) {
            highlighter->spans.clear();
            std::string().swap(highlighter->text);
            highlighter->highlighter->clearStateStack();
            highlighter->highlighter->setCurrentState(highlighter->highlighter->getMainState());
            idle.push_back(highlighter);
            return;
        }
    } catch (...) {
        // No room to keep it (std::bad_alloc): it is freed below.
    }
    delete highlighter;
}

extern "C" int llmster_highlighter_line(llmster_highlighter *highlighter, const char *line, size_t length, int advance,
                                        const llmster_highlight_span **spans, size_t *count) {
    if (highlighter == nullptr || spans == nullptr || count == nullptr || (line == nullptr && length > 0)) return -1;
    *spans = nullptr;
    *count = 0;
    srchilite::SourceHighlighter &lexer = *highlighter->highlighter;
    srchilite::HighlightStatePtr savedState = lexer.getCurrentState();
    srchilite::HighlightStateStackPtr savedStack = lexer.getStateStack();
    try {
        std::lock_guard<std::mutex> guard(libraryLock());
        std::string &text = highlighter->text;
        text.assign(line == nullptr ? "" : line, length);
        if (!advance) {
            // The lexer mutates its stack in place; a copy keeps the committed state for the next line.
            lexer.setStateStack(srchilite::HighlightStateStackPtr(new srchilite::HighlightStateStack(*savedStack)));
        }
        highlighter->spans.clear();
        if (highlighter->usesOwnLoop) {
            ++currentLine;
            highlightLine(lexer, text, highlighter->spans, highlighter->lastLineCost);
        } else {
            lexer.highlightParagraph(text);
        }
        holdLibraryAtExit();
        if (!advance) {
            lexer.setCurrentState(savedState);
            lexer.setStateStack(savedStack);
        }
        size_t covered = highlighter->spans.empty() ? 0 : highlighter->spans.back().offset + highlighter->spans.back().length;
        if (covered != length) {
            // Spans that do not tile the line cannot be mapped back onto it; the caller shows the line plain.
            highlighter->spans.clear();
            return -1;
        }
        *spans = highlighter->spans.data();
        *count = highlighter->spans.size();
        return 0;
    } catch (...) {
        // std::bad_alloc or a regex error (boost::regex throws on pathological backtracking): report it, with the
        // lexer back where the last committed line left it for a preview, or at the start of the language.
        highlighter->spans.clear();
        if (!advance) {
            lexer.setCurrentState(savedState);
            lexer.setStateStack(savedStack);
        } else {
            lexer.clearStateStack();
            lexer.setCurrentState(lexer.getMainState());
        }
        return -1;
    }
}

extern "C" int llmster_highlighter_uses_own_loop(const llmster_highlighter *highlighter) {
    return highlighter != nullptr && highlighter->usesOwnLoop ? 1 : 0;
}

extern "C" int llmster_highlighter_searched_bytes(const llmster_highlighter *highlighter, size_t *bytes) {
    if (highlighter == nullptr || bytes == nullptr) return -1;
    std::lock_guard<std::mutex> guard(libraryLock());
    *bytes = highlighter->lastLineCost.bytes;
    return 0;
}

extern "C" int llmster_highlighter_stopped_searches(const llmster_highlighter *highlighter, size_t *searches) {
    if (highlighter == nullptr || searches == nullptr) return -1;
    std::lock_guard<std::mutex> guard(libraryLock());
    *searches = highlighter->lastLineCost.stopped;
    return 0;
}

extern "C" int llmster_highlighter_pcre2_rules(const llmster_highlighter *highlighter, size_t *pcre2, size_t *rules) {
    if (highlighter == nullptr || pcre2 == nullptr || rules == nullptr) return -1;
    *pcre2 = 0;
    *rules = 0;
    try {
        std::lock_guard<std::mutex> guard(libraryLock());
        std::set<const srchilite::HighlightState *> seen;
        countPcreRules(highlighter->highlighter->getMainState(), seen, *pcre2, *rules);
        return 0;
    } catch (...) {
        return -1;
    }
}
