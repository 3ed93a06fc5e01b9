#ifndef LLMSTER_CSYSTEM_SHIM_H
#define LLMSTER_CSYSTEM_SHIM_H
/* glibc declarations Swift's Glibc module does not import. Nothing to link: they are in libc itself. */
#include <malloc.h>
#include <sys/signalfd.h>

/* Serves allocations of `bytes` and more from mmap, and keeps glibc from raising that threshold after
   the first such buffer is freed, so large buffers go back to the system as soon as they are freed.
   Returns 1 on success, 0 on failure. */
static inline int llmster_mmap_large_allocations(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}
#endif
