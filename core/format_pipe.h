/* format_pipe: one format's state coupled to the analysis that consumes its records.
 *
 * The reader (core/artefact_reader) feeds bytes to a pipe without knowing whether the
 * format emits records (then the pipe opens the analysis of the artefact's kind and
 * routes the records it wants to it) or still fills its summary itself (the torch
 * profile). Either way the summary of the kind is complete after format_pipe_finish. */
#ifndef GOBLIN_FORMAT_PIPE_H
#define GOBLIN_FORMAT_PIPE_H

#include "analyses/analysis.h"

typedef struct format_pipe {
    const artefact_parser *p;
    void *fmt;                 /* the format's state: what p->feed takes */
    const analysis *a;         /* NULL for a format that fills its summary itself */
    void *an;
    record_sink sink;
} format_pipe;

/* Opens format p (of kind `kind`) writing `summary`. false on allocation failure
 * (nothing is left open). */
bool format_pipe_open(format_pipe *fp, const artefact_parser *p, artefact_kind kind, const parse_options *opt,
                      const char *label, void *summary, diag_list *diag);
/* End of input: the format's finish, then the analysis's. */
void format_pipe_finish(format_pipe *fp);
void format_pipe_close(format_pipe *fp);

#endif
