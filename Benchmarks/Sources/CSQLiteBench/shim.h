// The system SQLite's C API, for the raw baselines of the benchmarks, and glibc's malloc_trim, so that the
// memory figure starts from a heap that has handed its free pages back to the system.
#include <sqlite3.h>
#if __has_include(<malloc.h>)
#include <malloc.h>
#endif
