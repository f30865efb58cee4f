/* id_map: an open-addressing hash map from a 64-bit id (a correlation id, torch's External
 * id) to a 32-bit slot index (str_pool.h interns strings through one).
 *
 * They are what the ops, phases and layers analyses join records on: a kernel and its
 * launch share a correlation id, the launch and its CPU operator share an External id.
 * Both grow by doubling and stop at a caller-given limit (id_map_put returns ID_MAP_FULL),
 * so memory stays bounded whatever the trace. */
#ifndef GOBLIN_ID_MAP_H
#define GOBLIN_ID_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ID_MAP_NONE UINT32_MAX       /* id_map_get: not present */
#define ID_MAP_FULL (UINT32_MAX - 1) /* id_map_put: the map holds max_entries already */
#define ID_MAP_OOM (UINT32_MAX - 2)  /* id_map_put: out of memory */

/* One 12-byte slot: the key in two halves and val + 1 (0: empty, so calloc'd slots are
 * empty). One slot is one memory access where separate key/value/used arrays were three. */
typedef struct id_slot {
    uint32_t lo, hi, val1;
} id_slot;

typedef struct id_map {
    id_slot *slots;
    size_t cap, n, max_entries;
    uint64_t kmin, kmax;     /* bounds of the keys stored (when n > 0): an id outside them is
                              * absent without a probe (ids mostly arrive increasing) */
} id_map;

/* The value stored for id, or ID_MAP_NONE. */
uint32_t id_map_get(const id_map *m, uint64_t id);
/* Stores id -> val (replacing an earlier value); returns val, ID_MAP_FULL or ID_MAP_OOM.
 * val must be below ID_MAP_OOM (the sentinels cannot be stored). */
uint32_t id_map_put(id_map *m, uint64_t id, uint32_t val);
/* Slot i (0 <= i < m->cap): true and *id, *val when it holds an entry. For walking every
 * entry in slot order (a merge of one map into another). */
bool id_map_at(const id_map *m, size_t i, uint64_t *id, uint32_t *val);
/* The value stored for id when present; else stores id -> val and returns val (or
 * ID_MAP_FULL / ID_MAP_OOM): one probe where id_map_get then id_map_put take two. */
uint32_t id_map_get_or_put(id_map *m, uint64_t id, uint32_t val);
/* Stores entry e (sz bytes) for id in array v of *n entries indexed by m (the caller made room
 * for one more): a new id takes slot *n, an id already stored its own slot again, for a table
 * whose every lookup wants an id's latest entry. The array is then bounded by the map's
 * distinct ids (max_entries), not by the records: millions of records repeating one id keep
 * one entry. Past max_entries nothing is stored and *dropped counts it. false on OOM. */
bool id_map_keep_latest(id_map *m, void *v, size_t *n, uint64_t id, const void *e, size_t sz, uint64_t *dropped);
/* Frees the slots; m is then an empty map. */
void id_map_free(id_map *m);

#endif
