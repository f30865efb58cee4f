/* torch_trace_json: the torch.profiler chrome trace format (torch_profile.json[.gz]).
 *
 * The format has three states; open_records picks one by the record types the sink takes:
 *   - torch_trace_events.c: REC_TRACE_EVENT, the document as the reference's read_torch()
 *     reads it (the torch_stats analysis folds them into RunMetrics' torch_summary), for a
 *     sink that names REC_TRACE_EVENT alone (record_sink.types);
 *   - torch_trace_records.c: typed records (dispatches, copies, API calls, operators,
 *     annotations, metadata) for the analysis document, for a sink not naming it;
 *   - torch_trace_both.c: both, from one tokenizer, for a sink naming REC_TRACE_EVENT and
 *     typed types (the daemon's ingest: the run driver and RunMetrics' passenger).
 * This file passes feed/finish/close/join on, telling the states apart by their first word;
 * it also says where files of the format are, how to recognise them, and where a second
 * thread may start reading (resume_point). */
#include "parsers/formats/torch_trace_json.h"

#include <string.h>

#include "parsers/formats/torch_trace_both.h"
#include "parsers/formats/torch_trace_events.h"
#include "parsers/formats/torch_trace_records.h"

/* The typed records the format emits (torch_trace_records.c's). */
#define TJ_TYPED (1u << REC_KERNEL_DISPATCH | 1u << REC_MEMORY_COPY | 1u << REC_MEMSET | 1u << REC_API_CALL | \
                  1u << REC_CPU_OP | 1u << REC_ANNOTATION | 1u << REC_METADATA | 1u << REC_ALLOCATION)

static unsigned state_magic(const void *st) { return *(const unsigned *)st; }

/* Whether the sink takes any of the typed records. */
static bool wants_typed(const record_sink *sink) {
    for (unsigned t = 0; t < REC_TYPE_COUNT; t++)
        if ((TJ_TYPED >> t & 1u) && record_sink_wants(sink, (record_type)t)) return true;
    return false;
}

static void *tj_open_records(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                             diag_list *diag) {
    if (!record_sink_wants(sink, REC_TRACE_EVENT)) return torch_records_open(opt, label, sink, facts, diag);
    if (wants_typed(sink)) return torch_both_open(opt, label, sink, facts, diag);
    return torch_events_open(opt, label, sink, facts, diag);
}

static void *tj_open_records_resumed(const parse_options *opt, const char *label, const record_sink *sink,
                                     read_facts *facts, diag_list *diag, uint64_t offset, const uint8_t *head,
                                     size_t head_n) {
    if (!record_sink_wants(sink, REC_TRACE_EVENT))
        return torch_records_open_resumed(opt, label, sink, facts, diag, offset, head, head_n);
    if (wants_typed(sink)) return torch_both_open_resumed(opt, label, sink, facts, diag, offset, head, head_n);
    return torch_events_open_resumed(opt, label, sink, facts, diag, offset, head, head_n);
}

/* A '{' after ",<blanks with a newline>": how trace writers start each event (",\n{" or
 * "},\n  {"). Elsewhere (deeper, or in another list) the join finds out and declines. */
static size_t tj_resume_point(const uint8_t *buf, size_t n) {
    const uint8_t *nl = buf, *end = buf + n;
    while ((nl = memchr(nl, '\n', (size_t)(end - nl))) != NULL) {
        const uint8_t *before = nl, *after = nl + 1;
        while (before > buf && (before[-1] == ' ' || before[-1] == '\t' || before[-1] == '\r')) before--;
        while (after < end && (*after == ' ' || *after == '\t' || *after == '\r' || *after == '\n')) after++;
        if (before > buf && before[-1] == ',' && after < end && *after == '{') return (size_t)(after - buf);
        nl = after;
        if (nl >= end) break;
    }
    return n;
}

static bool tj_join(void *fst, void *snd) {
    unsigned m = state_magic(fst);
    if (m != state_magic(snd)) return false;
    return m == TORCH_EVENTS_MAGIC ? torch_events_join(fst, snd)
         : m == TORCH_BOTH_MAGIC   ? torch_both_join(fst, snd)
                                   : torch_records_join(fst, snd);
}

static bool tj_feed(void *st, const uint8_t *buf, size_t n) {
    unsigned m = state_magic(st);
    return m == TORCH_RECORDS_MAGIC ? torch_records_feed(st, buf, n)
         : m == TORCH_EVENTS_MAGIC  ? torch_events_feed(st, buf, n)
                                    : torch_both_feed(st, buf, n);
}

static void tj_finish(void *st) {
    unsigned m = state_magic(st);
    if (m == TORCH_RECORDS_MAGIC) torch_records_finish(st);
    else if (m == TORCH_EVENTS_MAGIC) torch_events_finish(st);
    else torch_both_finish(st);
}

static void tj_close(void *st) {
    if (!st) return;
    unsigned m = state_magic(st);
    if (m == TORCH_RECORDS_MAGIC) torch_records_close(st);
    else if (m == TORCH_EVENTS_MAGIC) torch_events_close(st);
    else torch_both_close(st);
}

static const char *const TJ_NAMES[] = {"torch_profile.json", "torch_profile.json.gz", NULL};

static bool head_has(const uint8_t *head, size_t n, const char *word) {
    size_t wl = strlen(word);
    for (size_t i = 0; i + wl <= n; i++)
        if (!memcmp(head + i, word, wl)) return true;
    return false;
}

/* A Chrome trace: an object naming Kineto's keys ("traceEvents", "schemaVersion",
 * "deviceProperties", ...) or events ("ph"), or a bare array of events (2020 Kineto,
 * torch_npu's trace_view.json) in the first bytes: 80; an object starting with a
 * "metadata" member (a wrapper that puts the trace after it): 70. Other JSON is not one; a
 * gzipped profile whose inflated bytes are not at hand is known by its name only (50). */
static int tj_sniff(const char *name, const uint8_t *head, size_t n) {
    size_t l = strlen(name);
    if (!n) return l >= 3 && !strcmp(name + l - 3, ".gz") ? 50 : 0;
    size_t i = 0;
    if (n >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF) i = 3;   /* UTF-8 BOM */
    while (i < n && (head[i] == ' ' || head[i] == '\n' || head[i] == '\t' || head[i] == '\r')) i++;
    if (i == n || (head[i] != '{' && head[i] != '[')) return 0;
    static const char *const KEYS[] = {"\"traceEvents\"", "\"schemaVersion\"", "\"deviceProperties\"",
                                       "\"distributedInfo\"", "\"ph\"", "\"displayTimeUnit\"",
                                       "torch_profiler", NULL};
    for (const char *const *k = KEYS; *k; k++)
        if (head_has(head + i, n - i, *k)) return 80;
    /* goblin_runner's and TraceLens' wrappers put a "metadata" object first */
    return head[i] == '{' && head_has(head + i, n - i, "\"metadata\"") ? 70 : 0;
}

const artefact_parser torch_trace_json_parser = {
    .name = "torch-trace-json",
    .family = "kineto",
    .kind = ARTEFACT_TORCH_PROFILE,
    /* torch_trace_records.c's types (REC_TRACE_EVENT only to a sink naming it) */
    .emits = TJ_TYPED,
    .shares_records = true,
    .names = TJ_NAMES,
    .sniff = tj_sniff,
    .open_records = tj_open_records,
    .feed = tj_feed,
    .finish = tj_finish,
    .close = tj_close,
    .resume_point = tj_resume_point,
    .join = tj_join,
    .open_records_resumed = tj_open_records_resumed,
};
