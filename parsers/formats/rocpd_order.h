/* rocpd_order: records of a database view put in key order ((start, id) for rows in time,
 * (index, id) for agents) in bounded memory, instead of an SQL ORDER BY over a view whose
 * size nobody bounds (a hostile view is endless; SQLite would sort it in temp space).
 *
 * A window of at most ROCPD_ORDER_ROWS records (and ROCPD_ORDER_BYTES of their strings) is
 * kept in a min-heap; when full, the smallest is emitted. The output is exactly the sorted
 * order whenever no row lies more than the window away from its place (rocprofv3 writes
 * its rows in start order: they pass straight through); rows that come out of order
 * anyway are counted (rocpd_order.late) and still emitted. */
#ifndef GOBLIN_ROCPD_ORDER_H
#define GOBLIN_ROCPD_ORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "base/i128.h"
#include "parsers/record.h"

#define ROCPD_ORDER_ROWS 8192
#define ROCPD_ORDER_BYTES (16u << 20)

typedef struct rocpd_order_item rocpd_order_item;

typedef struct rocpd_order {
    const record_sink *sink;
    rocpd_order_item *heap;
    size_t n, cap, bytes;
    uint64_t seq;
    bool emitted;                  /* last_* hold the last emitted key */
    i128 last_k1;
    int64_t last_k2;
    uint64_t late;                 /* records emitted after a larger key */
} rocpd_order;

/* An empty order emitting to sink. */
void rocpd_order_init(rocpd_order *o, const record_sink *sink);
/* Adds r (its strings copied) under key (k1, k2); records of equal key keep their order.
 * false: out of memory or the sink refused (the read stops). */
bool rocpd_order_add(rocpd_order *o, i128 k1, int64_t k2, const record *r);
/* Emits everything held, in order. false: the sink refused. */
bool rocpd_order_flush(rocpd_order *o);
/* Frees what is held (without emitting it). */
void rocpd_order_free(rocpd_order *o);

#endif
