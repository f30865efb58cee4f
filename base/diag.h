/* diag: the warnings a parse collects (file, line or byte offset, what went wrong).
 *
 * Parsers never print or abort on bad input; they add a warning here and go on.
 * The list is bounded so a hostile file cannot grow it without limit. */
#ifndef GOBLIN_DIAG_H
#define GOBLIN_DIAG_H

#include <stddef.h>

#define DIAG_MAX 32

typedef struct diag_list {
    char *items[DIAG_MAX];
    size_t count;     /* stored items */
    size_t dropped;   /* warnings beyond DIAG_MAX, summarised on render */
} diag_list;

void diag_init(diag_list *d);
void diag_free(diag_list *d);
/* printf-style; never fails visibly (an allocation failure drops the warning). */
void diag_add(diag_list *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Moves every warning of src to the end of dst (src is left empty). */
void diag_move(diag_list *dst, diag_list *src);

#endif
