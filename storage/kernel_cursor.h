/* kernel_cursor: a run's kernel rows, read one at a time from a private read-only connection.
 *
 * The /kernels answer of a run with 300,000 kernel names is tens of megabytes; the API streams
 * it from this cursor instead of building it in memory. The cursor has its own connection (not
 * one of the store's four pooled readers, which a slow client would otherwise hold) with a
 * small page cache, so its memory is bounded, and it reads one snapshot from first row to last.
 * It is used from one thread; kernel_cursor_open takes a flag another thread may set to make a
 * long step (the sort before the first row) give up. */
#ifndef GOBLIN_KERNEL_CURSOR_H
#define GOBLIN_KERNEL_CURSOR_H

#include <stdatomic.h>
#include <stddef.h>

#include "storage/store.h"

typedef struct kernel_cursor kernel_cursor;

/* The SELECT of a run's kernels in this order (?1 = run id, ?2 = limit), shared with
 * store_run_kernels. The share of time is TOTAL() based: SUM() overflows on saturated totals. */
void kernel_query_sql(kernel_sort sort, char *out, size_t n);
/* NULL with err filled when the database cannot be opened or the query prepared. */
kernel_cursor *kernel_cursor_open(store *s, const char *id, kernel_sort sort, int limit, const atomic_bool *cancel,
                                  char *err, size_t errlen);
/* 1 with *row filled (valid until the next call), 0 at the end, -1 on an error or when
 * cancelled. */
int kernel_cursor_next(kernel_cursor *k, kernel_row *row);
void kernel_cursor_close(kernel_cursor *k);

#endif
