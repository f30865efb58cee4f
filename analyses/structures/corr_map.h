/* corr_map: correlation id -> two times and a lane, bounded, for launch matching.
 *
 * The timeline matches each GPU operation with the host call that launched it through the
 * correlation id. Whichever of the two arrives first waits in a corr_map until the other
 * comes (then it is removed), so a map holds only the outstanding launches or operations,
 * not the trace. It never holds more than CORR_MAP_MAX entries: beyond that, inserts are
 * refused (the caller counts them as unmatched). Open addressing with backward-shift
 * deletion (no tombstones). */
#ifndef GOBLIN_CORR_MAP_H
#define GOBLIN_CORR_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CORR_MAP_MAX 16384u

typedef struct corr_entry {
    uint64_t corr;
    int64_t a, b;          /* launch: start, end; operation: start, (unused) */
    uint32_t lane;         /* operation: the stream's index in its state */
    bool used;
} corr_entry;

typedef struct corr_map {
    corr_entry *slots;     /* 2 * CORR_MAP_MAX slots once used */
    size_t count;
    bool oom;              /* its slots could not be allocated: an insert was lost (the owner fails) */
    uint64_t lo, hi;       /* when count > 0: every stored corr is in [lo, hi] (bounds kept
                            * on insert, not narrowed on removal); a corr outside is absent
                            * without a probe, which matters once the map is full of
                            * operations whose launches never come */
} corr_map;

/* Inserts corr. When corr is already there, the entry with the smaller `a` stays (an
 * operation's or a launch's start: a graph launch's kernels share one correlation id and the
 * launch matches the first of them); on equal `a`, the entry already there (read first).
 * false when the map is full or out of memory. */
bool corr_put(corr_map *m, uint64_t corr, int64_t a, int64_t b, uint32_t lane);
/* Removes corr and copies its entry to *out; false when absent. */
bool corr_take(corr_map *m, uint64_t corr, corr_entry *out);
/* The i-th slot (0 <= i < corr_slots(m)), NULL when empty: for folding one map into another. */
size_t corr_slots(const corr_map *m);
const corr_entry *corr_slot(const corr_map *m, size_t i);
/* Frees the slots; m is then an empty map. */
void corr_free(corr_map *m);

#endif
