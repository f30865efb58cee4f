/* layers: the layers section's finished layers, for the per-kernel export (analyses/kernel_rows.c),
 * which labels each kernel with the layer the section counts it in. */
#ifndef GOBLIN_LAYERS_H
#define GOBLIN_LAYERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyses/section.h"

extern const section_analysis layers_analysis;

/* One layer: its source index, its number in that source (as items[].layer), the key of the
 * kernel group it was found in (torch External id when by_ext, else launch correlation id)
 * and its span (first kernel start, last kernel end). false: stop (out of memory). */
typedef bool (*layer_fn)(void *user, size_t source, size_t number, uint64_t key, bool by_ext, int64_t lo, int64_t hi);

/* Calls fn for every layer of the finished layers section's run state (section_result(...,
 * "layers")), in the document's order (source, then start). false when fn returned false. */
bool layers_each(const void *run, layer_fn fn, void *user);

#endif
