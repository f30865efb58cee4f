/* format_pipe: one format's state coupled to the analysis that consumes its records.
 *
 * The reader (core/artefact_reader) feeds bytes to a pipe; the pipe opens the analysis of
 * the artefact's kind (analysis_for_kind) and routes the records it wants to it (the sink
 * names them in record_sink.types). The summary of the kind is complete after
 * format_pipe_finish.
 *
 * A split read has two pipes: the head's, and the tail's opened at a resume point. The
 * join folds the head into the tail only when both the format (it stands exactly where
 * the tail began) and the analysis (its results join exactly) agree. */
#ifndef GOBLIN_FORMAT_PIPE_H
#define GOBLIN_FORMAT_PIPE_H

#include "analyses/analysis.h"

typedef struct format_pipe {
    const artefact_parser *p;
    void *fmt;                 /* the format's state: what p->feed takes */
    const analysis *a;         /* the kind's analysis (analysis_for_kind) */
    void *an;
    record_sink sink;
    read_facts scratch;        /* a tail's facts until the join */
} format_pipe;

/* Opens format p (of kind `kind`) writing `summary`. false on allocation failure
 * (nothing is left open). */
bool format_pipe_open(format_pipe *fp, const artefact_parser *p, artefact_kind kind, const parse_options *opt,
                      const char *label, void *summary, diag_list *diag);
/* The analysis of `kind` alone (fp->fmt NULL): another reader's state of format p emits
 * into fp->sink (a descriptor-reading format's one read, core/run_ingest). false on
 * allocation failure. */
bool format_pipe_open_analysis(format_pipe *fp, const artefact_parser *p, artefact_kind kind, const parse_options *opt,
                               const char *label, void *summary, diag_list *diag);
/* Opens the tail of a split read at `offset` (see artefact_parser.open_records_resumed); head:
 * the file's first bytes. false: this format or its analysis cannot read a tail. */
bool format_pipe_open_resumed(format_pipe *fp, const artefact_parser *p, artefact_kind kind, const parse_options *opt,
                              const char *label, void *summary, diag_list *diag, uint64_t offset, const uint8_t *head,
                              size_t head_n);
/* head was fed exactly the bytes before tail's offset, tail the rest. true: tail now
 * stands for the whole file; false (nothing changed): head must read on. */
bool format_pipe_join(format_pipe *head, format_pipe *tail);
/* End of input: the format's finish (when it has a state), then the analysis's. */
void format_pipe_finish(format_pipe *fp);
void format_pipe_close(format_pipe *fp);

#endif
