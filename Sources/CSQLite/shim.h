#ifndef SEARCHLIGHT_CSQLITE_SHIM_H
#define SEARCHLIGHT_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import.
// https://www.sqlite.org/c3ref/c_static.html
static inline sqlite3_destructor_type searchlight_sqlite_transient(void) {
  return SQLITE_TRANSIENT;
}

// The FTS5 extension API of this connection, or NULL when SQLite was built without FTS5.
// The pointer type tag must outlive the statement, so it is a C string literal here.
// https://www.sqlite.org/fts5.html#extending_fts5
static inline fts5_api *searchlight_fts5_api(sqlite3 *db) {
  fts5_api *api = 0;
  sqlite3_stmt *statement = 0;
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &statement, 0) != SQLITE_OK) return 0;
  sqlite3_bind_pointer(statement, 1, (void *)&api, "fts5_api_ptr", 0);
  sqlite3_step(statement);
  sqlite3_finalize(statement);
  return api;
}

// Starts loading the cache line at `address` without waiting for it. Swift has no prefetch
// intrinsic; the ranked writer uses this to overlap the cache misses of a text's term
// lookups (`TermTable.prefetch`).
static inline void searchlight_prefetch(const void *address) {
  __builtin_prefetch(address);
}
#endif
