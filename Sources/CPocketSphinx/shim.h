#ifndef LLMSTER_CPOCKETSPHINX_SHIM_H
#define LLMSTER_CPOCKETSPHINX_SHIM_H
/* pocketsphinx, opened with dlopen when a recognizer is made: linked, it and the ~30 libraries it pulls in
   (PulseAudio, X11, LAPACK) would load into every llmster process and dominate its start-up. Declares only
   the calls llmster makes, with the engine's types kept opaque (int16 is short, int32 is int). */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

typedef struct cmd_ln_s cmd_ln_t;
typedef struct ps_decoder_s ps_decoder_t;
typedef struct arg_s arg_t;

/* A function of libpocketsphinx or of the libsphinxbase it links; NULL when they are not installed. */
static inline void *llmster_ps_symbol(const char *name) {
    void *library = dlopen("libpocketsphinx.so.3", RTLD_NOW | RTLD_LOCAL);
    return library ? dlsym(library, name) : NULL;
}

/* Whether the engine's library is installed (Debian: libpocketsphinx3). */
static inline int llmster_ps_available(void) { return llmster_ps_symbol("ps_init") != NULL; }

/* cmd_ln_init is variadic: a decoder configuration from the acoustic model, language model and dictionary. */
static inline cmd_ln_t *llmster_ps_config(const char *hmm, const char *lm, const char *dict) {
    const arg_t *(*args)(void) = (const arg_t *(*)(void))llmster_ps_symbol("ps_args");
    cmd_ln_t *(*init)(cmd_ln_t *, const arg_t *, int, ...) =
        (cmd_ln_t *(*)(cmd_ln_t *, const arg_t *, int, ...))llmster_ps_symbol("cmd_ln_init");
    if (!args || !init) return NULL;
    return init(NULL, args(), 1, "-hmm", hmm, "-lm", lm, "-dict", dict, "-logfn", "/dev/null", NULL);
}

/* Keeps the engine's diagnostic log off standard error. */
static inline void llmster_ps_silence_log(void) {
    void (*set)(FILE *) = (void (*)(FILE *))llmster_ps_symbol("err_set_logfp");
    if (set) set(NULL);
}

static inline int llmster_cmd_ln_free_r(cmd_ln_t *config) {
    int (*call)(cmd_ln_t *) = (int (*)(cmd_ln_t *))llmster_ps_symbol("cmd_ln_free_r");
    return call ? call(config) : -1;
}

static inline ps_decoder_t *llmster_ps_init(cmd_ln_t *config) {
    ps_decoder_t *(*call)(cmd_ln_t *) = (ps_decoder_t *(*)(cmd_ln_t *))llmster_ps_symbol("ps_init");
    return call ? call(config) : NULL;
}

static inline int llmster_ps_free(ps_decoder_t *decoder) {
    int (*call)(ps_decoder_t *) = (int (*)(ps_decoder_t *))llmster_ps_symbol("ps_free");
    return call ? call(decoder) : -1;
}

static inline int llmster_ps_start_utt(ps_decoder_t *decoder) {
    int (*call)(ps_decoder_t *) = (int (*)(ps_decoder_t *))llmster_ps_symbol("ps_start_utt");
    return call ? call(decoder) : -1;
}

static inline int llmster_ps_process_raw(ps_decoder_t *decoder, const short *data, size_t count, int no_search, int full_utt) {
    int (*call)(ps_decoder_t *, const short *, size_t, int, int) =
        (int (*)(ps_decoder_t *, const short *, size_t, int, int))llmster_ps_symbol("ps_process_raw");
    return call ? call(decoder, data, count, no_search, full_utt) : -1;
}

static inline int llmster_ps_end_utt(ps_decoder_t *decoder) {
    int (*call)(ps_decoder_t *) = (int (*)(ps_decoder_t *))llmster_ps_symbol("ps_end_utt");
    return call ? call(decoder) : -1;
}

static inline const char *llmster_ps_get_hyp(ps_decoder_t *decoder, int *score) {
    const char *(*call)(ps_decoder_t *, int *) = (const char *(*)(ps_decoder_t *, int *))llmster_ps_symbol("ps_get_hyp");
    return call ? call(decoder, score) : NULL;
}
#endif
