/* format_pipe: a format's records routed to its kind's analysis. */
#include "core/format_pipe.h"

#include <string.h>

/* The sink a format emits into: records the analysis does not want are dropped here, so
 * a format may emit every record type it reads. */
static bool route(void *user, const record *r) {
    format_pipe *fp = user;
    if (!(fp->a->wants & REC_BIT(r->type))) return true;
    return fp->a->consume(fp->an, r);
}

bool format_pipe_open(format_pipe *fp, const artefact_parser *p, artefact_kind kind, const parse_options *opt,
                      const char *label, void *summary, diag_list *diag) {
    memset(fp, 0, sizeof *fp);
    fp->p = p;
    if (!p->open_records) return (fp->fmt = p->open(opt, label, summary, diag)) != NULL;
    fp->a = analysis_for_kind(kind);
    if (!fp->a || !(fp->an = fp->a->open(opt, label, summary, diag))) return false;
    /* the summary analyses read names and durations only: no optional field is asked for */
    fp->sink = (record_sink){.emit = route, .user = fp, .fields = 0};
    fp->fmt = p->open_records(opt, label, &fp->sink, fp->a->facts(summary), diag);
    if (!fp->fmt) { fp->a->close(fp->an); fp->an = NULL; return false; }
    return true;
}

void format_pipe_finish(format_pipe *fp) {
    fp->p->finish(fp->fmt);
    if (fp->a) fp->a->finish(fp->an);
}

void format_pipe_close(format_pipe *fp) {
    if (fp->fmt) fp->p->close(fp->fmt);
    if (fp->an) fp->a->close(fp->an);
    fp->fmt = fp->an = NULL;
}
