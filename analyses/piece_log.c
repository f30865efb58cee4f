/* piece_log: entries in blocks that never move (see piece_log.h). */
#include "analyses/piece_log.h"

#include <stdlib.h>

void *plog_push(piece_log *l) {
    size_t b = l->n / PIECE_LOG_BLOCK;
    if (b == l->nblocks) {
        if (l->nblocks == l->capblocks) {
            size_t c = l->capblocks ? l->capblocks * 2 : 16;
            char **v = realloc(l->blocks, c * sizeof *v);
            if (!v) return NULL;
            l->blocks = v, l->capblocks = c;
        }
        if (!(l->blocks[l->nblocks] = malloc(PIECE_LOG_BLOCK * l->size))) return NULL;
        l->nblocks++;
    }
    return plog_at(l, l->n++);
}

void plog_free(piece_log *l) {
    for (size_t i = 0; i < l->nblocks; i++) free(l->blocks[i]);
    free(l->blocks);
    size_t size = l->size;
    *l = (piece_log){.size = size};
}
