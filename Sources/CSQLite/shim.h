#ifndef LLMSTER_CSQLITE_SHIM_H
#define LLMSTER_CSQLITE_SHIM_H
#include <sqlite3.h>

/* SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import. */
static inline sqlite3_destructor_type llmster_sqlite_transient(void) { return SQLITE_TRANSIENT; }
/* sqlite3_config is variadic. */
static inline int llmster_sqlite_busy_timeout(sqlite3 *db, int ms) { return sqlite3_busy_timeout(db, ms); }
#endif
