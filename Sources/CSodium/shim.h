#ifndef LLMSTER_CSODIUM_SHIM_H
#define LLMSTER_CSODIUM_SHIM_H
#include <sodium.h>
#include <sys/prctl.h>

/* Keeping secrets out of core dumps belongs with libsodium (whose sodium_mlock also excludes memory from
   dumps). prctl is variadic, which Swift cannot call, so this fixes its arguments: it makes the process not
   dumpable (no core file, no ptrace or /proc/PID/mem by other processes of the same user), so a crash cannot
   write LM_API_TOKEN to disk. Returns 0, or -1 with errno set. */
static inline int llmster_forbid_core_dumps(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}
#endif
