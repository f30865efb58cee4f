/* diag: the warnings a parse collects (file, line or byte offset, what went wrong).
 *
 * Parsers never print or abort on bad input; they add a warning here and go on.
 * The list is bounded so a hostile file cannot grow it without limit. */
#ifndef GOBLIN_DIAG_H
#define GOBLIN_DIAG_H

#include <stdbool.h>
#include <stddef.h>

#define DIAG_MAX 32
#define DIAG_RESERVED 48   /* beyond DIAG_MAX, for diag_add_reserved's warnings only (every clamped and unknown number) */

typedef struct diag_list {
    char *items[DIAG_MAX + DIAG_RESERVED];
    size_t count;     /* stored items */
    size_t dropped;   /* warnings beyond DIAG_MAX, summarised on render */
    bool out_of_memory;   /* memory ran out: a diag_oom warning, or a warning lost for lack of it */
} diag_list;

/* An empty list. */
void diag_init(diag_list *d);
/* Frees the warnings; d is empty again. */
void diag_free(diag_list *d);
/* diag_add for a warning that must not be lost to the DIAG_MAX bound, as the ones naming a number
 * reported as 0 (core/run_headline, core/waste_budget): it may use DIAG_RESERVED more entries
 * (nothing already in the list is ever freed: a file's first warning is referred to). */
void diag_add_reserved(diag_list *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* printf-style; never fails visibly (an allocation failure drops the warning and marks the
 * list out_of_memory). */
void diag_add(diag_list *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* diag_add for a warning that memory ran out (what is partial because of it): the list is
 * marked out_of_memory even when the warning itself cannot be stored, so a run whose numbers
 * may be partial is never taken for a complete one (core/run_headline's verdict). */
void diag_oom(diag_list *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Copies every warning of src to the end of dst (src unchanged), its dropped count and its
 * out_of_memory mark too. */
void diag_append(diag_list *dst, const diag_list *src);
/* Moves every warning of src to the end of dst (src is left empty). */
void diag_move(diag_list *dst, diag_list *src);

#endif
