/* rocprofv3_json_counters: callback_records.counter_collection of rocprofv3's JSON ->
 * REC_COUNTER records (see rocprofv3_json.c for the whole format). Each entry is one
 * dispatch (dispatch_data: times, agent, kernel, correlation and dispatch ids) and its
 * records (counter_id, value), one per counter dimension instance: values of one counter are
 * summed per dispatch, as rocprofv3's counter_collection.csv does, and each sum becomes one
 * record named by the counters[] table. */
#include <stdio.h>
#include <stdlib.h>

#include "parsers/formats/rocprofv3_json_internal.h"

/* One counter_collection entry closed: a REC_COUNTER per counter it summed. */
static void counter_entry_end(state *s) {
    pending *p = &s->p;
    const symbol *k = (p->have & P_KID) ? rpj_symbol_of(s, p->kernel_id) : NULL;
    char id[24];
    int idn = snprintf(id, sizeof id, "%llu", (unsigned long long)s->dispatch_id);
    record_field f[2];
    size_t nf = 0;
    if (k) f[nf++] = (record_field){"kernel", k->name, strlen(k->name)};
    if (s->has_dispatch_id) f[nf++] = (record_field){"dispatch_id", id, (size_t)idn};
    for (size_t i = 0; i < s->n_cc && !s->oom; i++) {
        const symbol *def = rpj_table_find(&s->counters, s->cc[i].handle, &s->oom);   /* (the first of the id) */
        const char *name = def ? def->name : NULL;
        if (!name) { s->counter_unknown++; continue; }
        record r = {.type = REC_COUNTER, .line = p->offset, .has = RF_VALUE, .name = name, .name_len = strlen(name),
                    .number = s->cc[i].sum, .fields = nf ? f : NULL, .n_fields = nf};
        if ((p->have & (P_START | P_END)) == (P_START | P_END) && p->end >= p->start)
            r.has |= RF_START | RF_END | RF_DURATION, r.start_ns = (i128)p->start, r.end_ns = (i128)p->end,
            r.duration_ns = (i128)p->end - (i128)p->start;
        int64_t dev;
        if ((p->have & P_AGENT) && rpj_agent_index(s, p->agent, &dev)) r.has |= RF_DEVICE, r.device = dev;
        if (p->have & P_CORR) r.has |= RF_CORRELATION, r.correlation_id = p->corr;
        rpj_emit(s, &r);
    }
    s->n_cc = 0;
}

/* Tokens inside callback_records.counter_collection[] (element objects at depth 5). */
void rpj_counter_token(state *s, const jt_token *t) {
    unsigned d = t->depth;
    if (d == 5 && t->kind == JT_OBJECT_BEGIN) {
        rpj_pending_reset(&s->p, t->offset);
        s->n_cc = 0;
        s->has_dispatch_id = false;
    } else if (d == 5 && t->kind == JT_OBJECT_END) counter_entry_end(s);
    else if (d == 7 && key_is(s, 6, "records") && t->kind == JT_OBJECT_BEGIN) s->cc_has_handle = s->cc_has_value = false;
    else if (d == 7 && key_is(s, 6, "records") && t->kind == JT_OBJECT_END) {
        if (!s->cc_has_handle || !s->cc_has_value) return;
        size_t i = 0;
        while (i < s->n_cc && s->cc[i].handle != s->cc_handle) i++;
        if (i == s->n_cc) {
            if (s->n_cc == COUNTERS_PER_DISPATCH) { s->counters_dropped++; return; }
            s->cc[s->n_cc++] = (counter_sum){s->cc_handle, 0.0};
        }
        s->cc[i].sum += s->cc_value;
    } else if (d == 8 && key_is(s, 6, "records") && key_is(s, 8, "value") && t->kind == JT_NUMBER && !t->truncated) {
        s->cc_value = jt_strtod(t->text, t->len);
        s->cc_has_value = true;
    } else if (d == 9 && key_is(s, 6, "records") && key_is(s, 8, "counter_id") && key_is(s, 9, "handle"))
        s->cc_has_handle = tok_u64(t, &s->cc_handle);
    else if (d >= 7 && key_is(s, 6, "dispatch_data") && t->kind != JT_OBJECT_BEGIN && t->kind != JT_ARRAY_BEGIN &&
             t->kind != JT_OBJECT_END && t->kind != JT_ARRAY_END) {
        char path[4 * KEY_CAP];
        rpj_key_path(s, 7, d, path, sizeof path);
        if (!strcmp(path, "dispatch_info.dispatch_id")) s->has_dispatch_id = tok_u64(t, &s->dispatch_id);
        else rpj_pending_value(s, path, t, d);
    }
}

/* counters[] closed an element: remember id.handle -> name. */
void rpj_counter_def_end(state *s) {
    pending *p = &s->p;
    if (!(p->have & P_AGENT) || !p->name.len) return;
    if (s->counters.n >= COUNTER_DEFS_MAX) { s->table_full++; return; }
    char *c = rpj_table_text(s, p->name.data, p->name.len);
    if (!c) return;
    if (!rpj_table_push(&s->counters, (symbol){.id = p->agent, .name = c}, COUNTER_DEFS_MAX)) {
        free(c);
        s->oom = true;
    }
}

