#ifndef SEARCHLIGHT_CSQLITE_SHIM_H
#define SEARCHLIGHT_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import.
// https://www.sqlite.org/c3ref/c_static.html
static inline sqlite3_destructor_type searchlight_sqlite_transient(void) {
  return SQLITE_TRANSIENT;
}
#endif
