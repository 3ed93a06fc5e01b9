// GNU source-highlight behind the C API of CSourceHighlight.h; see the header for ownership and threads.
#include "CSourceHighlight.h"

#include <srchilite/formattermanager.h>
#include <srchilite/formatterparams.h>
#include <srchilite/instances.h>
#include <srchilite/langdefmanager.h>
#include <srchilite/langmap.h>
#include <srchilite/sourcehighlighter.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace {

// Guards source-highlight's global language map and definition cache (Instances), shared by every handle. Never
// destroyed: holdLibraryAtExit keeps it locked while exit destroys static objects.
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

// Receives the text of one element and appends it as a span of its kind.
class SpanFormatter : public srchilite::Formatter {
public:
    SpanFormatter(std::vector<llmster_highlight_span> &spans, llmster_token_kind kind) : spans(spans), kind(kind) {}

    void format(const std::string &text, const srchilite::FormatterParams *) override {
        if (text.empty()) return;
        size_t offset = spans.empty() ? 0 : spans.back().offset + spans.back().length;
        if (!spans.empty() && spans.back().kind == kind) {
            spans.back().length += text.size();
        } else {
            spans.push_back({offset, text.size(), kind});
        }
    }

private:
    std::vector<llmster_highlight_span> &spans;
    llmster_token_kind kind;
};

struct ElementKind {
    const char *element;
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
    std::vector<llmster_highlight_span> spans;
    std::unique_ptr<srchilite::FormatterManager> formatters;
    std::unique_ptr<srchilite::SourceHighlighter> highlighter;
    srchilite::FormatterParams params;
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

}  // namespace

extern "C" llmster_highlighter *llmster_highlighter_create(const char *language, const char *bundled_directory) {
    if (language == nullptr) return nullptr;
    try {
        std::lock_guard<std::mutex> guard(libraryLock());
        auto [directory, file] = cachedDefinition(language, bundled_directory);
        if (file.empty()) return nullptr;
        auto &idle = idleHighlighters()[{directory, file}];
        if (!idle.empty()) {
            llmster_highlighter *reused = idle.back();
            idle.pop_back();
            return reused;
        }
        auto manager = srchilite::Instances::getLangDefManager();
        auto state = directory.empty() ? manager->getHighlightState(file) : manager->getHighlightState(directory, file);
        std::unique_ptr<llmster_highlighter> handle(new llmster_highlighter());
        handle->definition = {directory, file};
        handle->formatters.reset(new srchilite::FormatterManager(
            srchilite::FormatterPtr(new SpanFormatter(handle->spans, LLMSTER_TOKEN_PLAIN))));
        for (const auto &entry : elementKinds) {
            handle->formatters->addFormatter(entry.element,
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
        if (idle.size() < idleHighlightersPerDefinition) {
            highlighter->spans.clear();
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
        std::string text(line == nullptr ? "" : line, length);
        if (!advance) {
            // The lexer mutates its stack in place; a copy keeps the committed state for the next line.
            lexer.setStateStack(srchilite::HighlightStateStackPtr(new srchilite::HighlightStateStack(*savedStack)));
        }
        highlighter->spans.clear();
        highlighter->params.start = 0;
        lexer.highlightParagraph(text);
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
        // std::bad_alloc or a regex error (boost::regex throws on pathological backtracking): reset and report.
        highlighter->spans.clear();
        lexer.clearStateStack();
        lexer.setCurrentState(lexer.getMainState());
        return -1;
    }
}
