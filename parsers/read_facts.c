/* read_facts: the bookkeeping of how one file was read (see artefact.h), shared by the
 * parsers so every format reports columns and skipped rows the same way. */
#include "parsers/artefact.h"

#include <stdlib.h>
#include <string.h>

void read_facts_skip(read_facts *f, const char *reason, uint64_t rows) {
    if (!rows) return;
    for (size_t i = 0; i < f->n_skips; i++)
        if (!strcmp(f->skipped[i].reason, reason)) { f->skipped[i].rows += rows; return; }
    if (f->n_skips == READ_SKIPS_MAX) return;
    f->skipped[f->n_skips].reason = reason;
    f->skipped[f->n_skips++].rows = rows;
}

bool read_facts_column(read_facts *f, const char *quantity, const char *column) {
    if (f->n_columns == READ_COLUMNS_MAX) return true;
    char *copy = column ? strdup(column) : NULL;
    if (column && !copy) return f->out_of_memory = true, false;
    f->columns[f->n_columns].quantity = quantity;
    f->columns[f->n_columns++].column = copy;
    return true;
}

void read_facts_free(read_facts *f) {
    for (size_t i = 0; i < f->n_columns; i++) free(f->columns[i].column);
    memset(f, 0, sizeof *f);
}
