/* read_facts_json: read_facts -> JSON (see the header). */
#include "core/read_facts_json.h"

#include "base/json_writer.h"

void read_facts_render(const read_facts *f, bool read, strbuf *out) {
    jw_out j;
    jw_begin(&j, out, 0);
    jw_object_open(&j);
    if (!read) {                                  /* not read: nothing is known of how */
        static const char *const HOW[] = {"found_by", "sniff_score", "columns", "rows_used", "rows_skipped"};
        for (size_t i = 0; i < sizeof HOW / sizeof *HOW; i++) {
            jw_key(&j, HOW[i]);
            jw_null(&j);
        }
    } else {
        jw_key(&j, "found_by");
        if (f->found_by) jw_string(&j, f->found_by);
        else jw_null(&j);
        jw_key(&j, "sniff_score");
        jw_int(&j, f->sniff_score);
        jw_key(&j, "columns");
        jw_object_open(&j);
        for (size_t i = 0; i < f->n_columns; i++) {
            jw_key(&j, f->columns[i].quantity);
            if (f->columns[i].column) jw_string(&j, f->columns[i].column);
            else jw_null(&j);
        }
        jw_object_close(&j);
        jw_key(&j, "rows_used");
        jw_int(&j, (int64_t)f->rows_used);
        jw_key(&j, "rows_skipped");
        jw_object_open(&j);
        for (size_t i = 0; i < f->n_skips; i++) {
            jw_key(&j, f->skipped[i].reason);
            jw_int(&j, (int64_t)f->skipped[i].rows);
        }
        jw_object_close(&j);
    }
    jw_key(&j, "steps_source");
    if (f->steps_source) jw_string(&j, f->steps_source);
    else jw_null(&j);
    jw_key(&j, "step_time_source");
    if (f->step_time_source) jw_string(&j, f->step_time_source);
    else jw_null(&j);
    jw_object_close(&j);
    strbuf_terminate(out);
}
