#ifndef LLMSTER_CREADLINE_SHIM_H
#define LLMSTER_CREADLINE_SHIM_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <readline/readline.h>
#include <readline/history.h>

/* Swift 6 cannot touch readline's mutable globals; these accessors do it for the REPL. */

static inline void llmster_rl_set_name(const char *name) { rl_readline_name = name; }
static inline void llmster_rl_set_completion(rl_completion_func_t *function) { rl_attempted_completion_function = function; }
static inline void llmster_rl_set_catch_signals(int on) { rl_catch_signals = on; rl_catch_sigwinch = on; }
static inline void llmster_rl_set_no_default_completion(int on) { rl_attempted_completion_over = on; }
static inline void llmster_rl_set_display_matches_hook(rl_compdisp_func_t *hook) { rl_completion_display_matches_hook = hook; }
static inline const char *llmster_rl_line_buffer(void) { return rl_line_buffer ? rl_line_buffer : ""; }
static inline void llmster_rl_set_point(int point) { rl_point = point; }
static inline int llmster_rl_point(void) { return rl_point; }
static inline int llmster_rl_end(void) { return rl_end; }
/* Whether readline holds input it read ahead (rlprivate.h): typed-ahead text is inserted in one go and the key that
   ended it (Enter) is pushed back into readline's own buffer, where poll() on the terminal cannot see it. */
extern int _rl_pushed_input_available(void);
static inline int llmster_rl_has_pushed_input(void) { return _rl_pushed_input_available(); }
/* Takes the next key readline holds (a key pushed back, or one of its buffer), -1 when it holds none: after a line is
   accepted, readline would go on reading what it holds with no line handler installed, and lose those lines. */
static inline int llmster_rl_take_pushed_key(void) {
    if (rl_pending_input) { int key = rl_pending_input; rl_clear_pending_input(); return key; }
    return _rl_pushed_input_available() ? rl_read_key() : -1;
}
/* Double and single quotes group a completion word with spaces (a title). */
static inline void llmster_rl_set_completion_quotes(void) { rl_completer_quote_characters = "\"'"; }
static inline int llmster_rl_completion_quote_character(void) { return rl_completion_quote_character; }

/* Duplicates `text` with malloc, as readline expects of completion matches. */
static inline char *llmster_strdup(const char *text) { return strdup(text); }
/* Allocates a NULL-terminated match array for `count` strings. */
static inline char **llmster_match_array(int count) { return (char **)calloc((size_t)count + 1, sizeof(char *)); }
static inline char **llmster_filename_matches(const char *text) { return rl_completion_matches(text, rl_filename_completion_function); }
#endif
