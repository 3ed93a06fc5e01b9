/*
 * A C face of GNU source-highlight for Swift: one highlighter per code block, fed one line at a time, carrying the
 * lexer state (an open block comment or multi-line string) from each line to the next.
 *
 * Ownership: llmster_highlighter_create returns a handle that has exactly one owner, who frees it with
 * llmster_highlighter_destroy. The span array a call returns belongs to the handle and stays valid until the next
 * call on that handle.
 *
 * Threads: a handle is used by one thread at a time (it is not synchronised). Handles may live on different
 * threads: every call takes one process-wide lock, because source-highlight keeps its language map and the cache of
 * compiled language definitions in unsynchronised globals that all handles share, and the rules of a definition
 * remember their searches on the line being highlighted (see llmster_highlighter_create).
 *
 * Errors: no function lets a C++ exception cross into the caller; failures are return values.
 */
#ifndef LLMSTER_CSOURCEHIGHLIGHT_H
#define LLMSTER_CSOURCEHIGHLIGHT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What a stretch of code is, reduced to the kinds a terminal theme colours.
typedef enum {
    LLMSTER_TOKEN_PLAIN = 0,
    LLMSTER_TOKEN_KEYWORD = 1,
    LLMSTER_TOKEN_TYPE = 2,
    LLMSTER_TOKEN_STRING = 3,
    LLMSTER_TOKEN_COMMENT = 4,
    LLMSTER_TOKEN_NUMBER = 5,
    LLMSTER_TOKEN_PREPROCESSOR = 6,
    LLMSTER_TOKEN_FUNCTION = 7,
    LLMSTER_TOKEN_VARIABLE = 8,
    LLMSTER_TOKEN_SPECIAL = 9,
    LLMSTER_TOKEN_INSERTED = 10,
    LLMSTER_TOKEN_DELETED = 11
} llmster_token_kind;

/// A stretch of one line: its byte offset and length in the line, and its kind.
typedef struct {
    size_t offset;
    size_t length;
    llmster_token_kind kind;
} llmster_highlight_span;

/// An opaque highlighter for one language.
typedef struct llmster_highlighter llmster_highlighter;

/// A highlighter for `language` (a Markdown info string word such as "python" or "sh", NUL-terminated), or NULL
/// when source-highlight has no definition for it or its files cannot be read. Definitions source-highlight lacks
/// are looked up as `LANGUAGE.lang` in `bundled_directory` (llmster's own, self-contained; NULL for none).
/// Lines are highlighted by llmster's loop over source-highlight's rules, which gives source-highlight's spans while
/// searching a rule again only once the line has moved past its last match, with PCRE2 in boost's place; `source_highlight_matching` non-zero runs source-highlight's own loop on
/// definitions loaded apart instead, for tests that compare the two.
llmster_highlighter *llmster_highlighter_create(const char *language, const char *bundled_directory,
                                                int source_highlight_matching);

/// Frees a highlighter; NULL is ignored. A few per language are kept, reset, for the next create of that language.
void llmster_highlighter_destroy(llmster_highlighter *highlighter);

/// Highlights one line (`length` bytes, no newline) and stores its spans, in order and covering the line, in
/// `*spans` and `*count`. With `advance` non-zero the lexer state moves past the line (a committed line);
/// otherwise it is left as it was (a preview of an unfinished line). Returns 0, or -1 when highlighting failed
/// (the state is then reset to the start of the language).
int llmster_highlighter_line(llmster_highlighter *highlighter, const char *line, size_t length, int advance,
                             const llmster_highlight_span **spans, size_t *count);

/// Whether `highlighter`'s lines go through llmster's own loop over the definition's rules (1), or source-highlight's
/// (0: asked for at create, or a definition with rules of another kind).
int llmster_highlighter_uses_own_loop(const llmster_highlighter *highlighter);

/// How many of the regex rules reachable from `highlighter`'s language are searched by PCRE2 (the rest by boost), and
/// how many there are, in `pcre2` and `rules`; 0 on success, -1 for a NULL argument.
int llmster_highlighter_pcre2_rules(const llmster_highlighter *highlighter, size_t *pcre2, size_t *rules);

/// The bytes the rule searches of the last line `highlighter` coloured through llmster's loop went through, each
/// search from its start to its match or the line's end, in `bytes`: in proportion to the line's length, not its
/// square; 0 on success, -1 for a NULL argument.
int llmster_highlighter_searched_bytes(const llmster_highlighter *highlighter, size_t *bytes);

/// The searches of the last line `highlighter` coloured through llmster's loop that PCRE2 stopped at its match limit
/// (a rule whose parts split a long word many ways), each taken as finding nothing, in `searches`; 0 on success, -1
/// for a NULL argument.
int llmster_highlighter_stopped_searches(const llmster_highlighter *highlighter, size_t *searches);

#ifdef __cplusplus
}
#endif

#endif
