#ifndef LLMSTER_CPOCKETSPHINX_SHIM_H
#define LLMSTER_CPOCKETSPHINX_SHIM_H
#include <pocketsphinx.h>
#include <sphinxbase/err.h>

/* cmd_ln_init is variadic: a decoder configuration from the acoustic model, language model and dictionary. */
static inline cmd_ln_t *llmster_ps_config(const char *hmm, const char *lm, const char *dict) {
    return cmd_ln_init(NULL, ps_args(), 1, "-hmm", hmm, "-lm", lm, "-dict", dict, "-logfn", "/dev/null", NULL);
}

/* Keeps the engine's diagnostic log off standard error. */
static inline void llmster_ps_silence_log(void) { err_set_logfp(NULL); }
#endif
