/* sqlite_mem: SQLite's allocations counted per thread, so that a read or a write can tell that
 * memory ran out during it even where SQLite does not say so.
 *
 * SQLite 3.40 answers some allocation failures with a quiet wrong value instead of an error:
 * sqlite3_column_text() returns NULL (the text looks absent), json_valid() returns 0 (valid
 * JSON looks invalid), a SQLITE_TRANSIENT bind leaves NULL. The store's readers and its write
 * of a run compare this thread's count before and after (store_reader_failed, store_ingest),
 * and give an error rather than such an answer. */
#ifndef GOBLIN_SQLITE_MEM_H
#define GOBLIN_SQLITE_MEM_H

#include <stdbool.h>

/* The SQLite allocations that failed on this thread since it began. */
unsigned long sqlite_mem_failures(void);
/* Whether the counting allocator is installed (it is, before main, unless SQLite was already
 * initialised then). */
bool sqlite_mem_counting(void);

#endif
