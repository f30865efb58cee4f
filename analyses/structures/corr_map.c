/* corr_map: bounded open-addressing map of outstanding correlations (see corr_map.h). */
#include "analyses/structures/corr_map.h"

#include <stdlib.h>
#include <string.h>

#define SLOTS (2u * CORR_MAP_MAX)

static size_t home(uint64_t corr) {
    uint64_t h = corr * 0x9E3779B97F4A7C15ULL;
    return (size_t)(h >> 32) & (SLOTS - 1);
}

bool corr_put(corr_map *m, uint64_t corr, int64_t a, int64_t b, uint32_t lane) {
    bool outside = !m->count || corr < m->lo || corr > m->hi;
    if (outside && m->count >= CORR_MAP_MAX) return false;       /* absent, and no room */
    if (!m->slots && !(m->slots = calloc(SLOTS, sizeof *m->slots))) return m->oom = true, false;
    size_t j = home(corr);
    for (; m->slots[j].used; j = (j + 1) & (SLOTS - 1))
        if (m->slots[j].corr == corr) {   /* the earlier a stays; on a tie, the entry already there */
            if (a < m->slots[j].a) m->slots[j] = (corr_entry){corr, a, b, lane, true};
            return true;
        }
    if (m->count >= CORR_MAP_MAX) return false;
    m->slots[j] = (corr_entry){corr, a, b, lane, true};
    if (!m->count || corr < m->lo) m->lo = corr;
    if (!m->count || corr > m->hi) m->hi = corr;
    m->count++;
    return true;
}

bool corr_take(corr_map *m, uint64_t corr, corr_entry *out) {
    if (!m->slots || !m->count || corr < m->lo || corr > m->hi) return false;
    size_t j = home(corr);
    while (m->slots[j].used && m->slots[j].corr != corr) j = (j + 1) & (SLOTS - 1);
    if (!m->slots[j].used) return false;
    *out = m->slots[j];
    /* backward-shift deletion: move later members of the probe run into the hole */
    size_t hole = j;
    for (size_t k = (j + 1) & (SLOTS - 1); m->slots[k].used; k = (k + 1) & (SLOTS - 1)) {
        size_t h = home(m->slots[k].corr);
        /* k may move to hole when its home is not in (hole, k] cyclically */
        bool stays = hole <= k ? (h > hole && h <= k) : (h > hole || h <= k);
        if (!stays) {
            m->slots[hole] = m->slots[k];
            hole = k;
        }
    }
    m->slots[hole].used = false;
    m->count--;
    return true;
}

size_t corr_slots(const corr_map *m) { return m->slots ? SLOTS : 0; }

const corr_entry *corr_slot(const corr_map *m, size_t i) {
    return m->slots && i < SLOTS && m->slots[i].used ? &m->slots[i] : NULL;
}

void corr_free(corr_map *m) {
    free(m->slots);
    m->slots = NULL;
    m->count = 0;
}
