/* format_pipe: a format's records routed to its kind's analysis. */
#include "core/format_pipe.h"

#include <string.h>

/* The sink a format emits into: records the analysis does not want are dropped here, so
 * a format may emit every record type it reads. */
static bool route(void *user, const record *r) {
    format_pipe *fp = user;
    /* a closed pipe takes nothing: a passenger whose read failed (a parse limit) is not
     * reopened by a restart, while the driver that reads the file again still emits into
     * the sink it was given (that was a NULL state dereferenced: a daemon crash) */
    if (!fp->an) return true;
    if (!(fp->a->wants & REC_BIT(r->type))) return true;
    return fp->a->consume(fp->an, r);
}

/* An empty pipe whose sink takes nothing (route: no analysis state), never a NULL emit: a
 * driver may hold &fp->sink while the pipe is closed or failed to open. */
static void clear(format_pipe *fp) {
    memset(fp, 0, sizeof *fp);
    fp->sink = (record_sink){.emit = route, .user = fp};
}

/* The analysis of the kind, opened, and the sink into it; false when there is none. */
static bool open_analysis(format_pipe *fp, artefact_kind kind, const parse_options *opt, const char *label,
                          void *summary, diag_list *diag) {
    fp->a = analysis_for_kind(kind);
    if (!fp->a || !(fp->an = fp->a->open(opt, label, summary, diag))) return false;
    /* the summary analyses read names and durations only: no optional field is asked for
     * (torch_stats reads REC_TRACE_EVENT's own, which it names in types) */
    fp->sink = (record_sink){.emit = route, .user = fp, .fields = 0, .types = fp->a->wants};
    return true;
}

bool format_pipe_open(format_pipe *fp, const artefact_parser *p, artefact_kind kind, const parse_options *opt,
                      const char *label, void *summary, diag_list *diag) {
    clear(fp);
    fp->p = p;
    if (!open_analysis(fp, kind, opt, label, summary, diag)) return false;
    fp->fmt = p->open_records(opt, label, &fp->sink, fp->a->facts(summary), diag);
    if (!fp->fmt) { fp->a->close(fp->an); fp->an = NULL; return false; }
    return true;
}

bool format_pipe_open_analysis(format_pipe *fp, const artefact_parser *p, artefact_kind kind, const parse_options *opt,
                               const char *label, void *summary, diag_list *diag) {
    clear(fp);
    fp->p = p;
    return open_analysis(fp, kind, opt, label, summary, diag);
}

bool format_pipe_open_resumed(format_pipe *fp, const artefact_parser *p, artefact_kind kind, const parse_options *opt,
                              const char *label, void *summary, diag_list *diag, uint64_t offset, const uint8_t *head,
                              size_t head_n) {
    clear(fp);
    fp->p = p;
    if (!p->open_records_resumed) return false;
    if (!open_analysis(fp, kind, opt, label, summary, diag)) return false;
    if (!fp->a->join || !(fp->fmt = p->open_records_resumed(opt, label, &fp->sink, &fp->scratch, diag, offset, head,
                                                           head_n))) {
        fp->a->close(fp->an);
        fp->an = NULL;
        return false;
    }
    return true;
}

bool format_pipe_join(format_pipe *head, format_pipe *tail) {
    if (!tail->a->can_join(head->an, tail->an)) return false;
    /* (no format states: the analyses of a records passenger, whose states are the driver's) */
    if (head->fmt && !head->p->join(head->fmt, tail->fmt)) return false;
    tail->a->join(head->an, tail->an);     /* an allocation failure is reported by finish */
    return true;
}

void format_pipe_finish(format_pipe *fp) {
    if (fp->fmt) fp->p->finish(fp->fmt);
    fp->a->finish(fp->an);
}

void format_pipe_close(format_pipe *fp) {
    if (fp->fmt) fp->p->close(fp->fmt);
    if (fp->an) fp->a->close(fp->an);
    read_facts_free(&fp->scratch);
    fp->fmt = fp->an = NULL;
}
