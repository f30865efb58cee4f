/* check_run_analysis: the run driver of the analysis document (core part).
 *
 * The inventory (several ranks, a rocprofv3 output tree one directory down, files no format
 * reads left out), the kernel source choice (device clock first, torch kernels only when the
 * device family has none), the fan-out to test-only section analyses (record routing, every
 * source folded in source order on one and on two threads, a derived analysis reading an
 * earlier one's number), the sources section, and the torch profile's fixed-point times. */
#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/run_analysis.h"
#include "parsers/formats/torch_trace_records.h"
#include "parsers/formats/torch_values.h"
#include "tests/test_util.h"

/* ---- a test-only section analysis: counts what it is given, and the order of folds ---- */
#define FAKE_MAX 32
typedef struct fake_run {
    size_t order[FAKE_MAX];      /* source index of each end_source, in call order */
    size_t n_ends;
    uint64_t dispatches, copies, cpu_ops, metadata;
    uint64_t per_source[FAKE_MAX];
    bool rank_seen[FAKE_MAX];
    int rank[FAKE_MAX];
} fake_run;
typedef struct fake_src {
    const source_ref *ref;
    uint64_t dispatches, copies, cpu_ops, metadata;
} fake_src;

static void *fake_open(const analysis_config *cfg, diag_list *d) { (void)cfg; (void)d; return calloc(1, sizeof(fake_run)); }
static void *fake_open_source(void *run, const source_ref *src) {
    (void)run;
    fake_src *s = calloc(1, sizeof *s);
    if (s) s->ref = src;
    return s;
}
static bool fake_consume(void *src, const record *r) {
    fake_src *s = src;
    if (r->type == REC_KERNEL_DISPATCH) s->dispatches++;
    if (r->type == REC_MEMORY_COPY) s->copies++;
    if (r->type == REC_CPU_OP) s->cpu_ops++;
    if (r->type == REC_METADATA) s->metadata++;
    return true;
}
static bool fake_end_source(void *run, void *src) {
    fake_run *f = run;
    fake_src *s = src;
    if (f->n_ends < FAKE_MAX) {
        f->order[f->n_ends++] = s->ref->index;
        if (s->ref->index < FAKE_MAX) {
            f->per_source[s->ref->index] = s->dispatches;
            f->rank[s->ref->index] = s->ref->rank;
            f->rank_seen[s->ref->index] = true;
        }
    }
    f->dispatches += s->dispatches;
    f->copies += s->copies;
    f->cpu_ops += s->cpu_ops;
    f->metadata += s->metadata;
    free(s);
    return true;
}
static bool fake_finish(void *run, const section_results *e) { (void)run; (void)e; return true; }
static void fake_render(const void *run, jw_out *w) {
    const fake_run *f = run;
    jw_object_open(w);
    jw_key(w, "dispatches");
    jw_int(w, (int64_t)f->dispatches);
    jw_object_close(w);
}
static bool fake_number(const void *run, const char *path, double *out) {
    if (strcmp(path, "dispatches")) return false;
    *out = (double)((const fake_run *)run)->dispatches;
    return true;
}
static void fake_close(void *run) { free(run); }
static const section_analysis FAKE = {
    .key = "fake", .wants = REC_BIT(REC_KERNEL_DISPATCH) | REC_BIT(REC_MEMORY_COPY) | REC_BIT(REC_CPU_OP) |
                            REC_BIT(REC_METADATA),
    .open = fake_open, .open_source = fake_open_source, .consume = fake_consume, .end_source = fake_end_source,
    .finish = fake_finish, .render = fake_render, .number = fake_number, .close = fake_close};

/* a derived analysis: reads fake's number in finish */
typedef struct derived_run { bool have; double v; } derived_run;
static void *derived_open(const analysis_config *cfg, diag_list *d) { (void)cfg; (void)d; return calloc(1, sizeof(derived_run)); }
static bool derived_finish(void *run, const section_results *e) {
    derived_run *r = run;
    r->have = section_number(e, "fake", "dispatches", &r->v);
    return true;
}
static void derived_render(const void *run, jw_out *w) {
    const derived_run *r = run;
    if (r->have) jw_number(w, r->v * 2); else jw_null(w);
}
static const section_analysis DERIVED = {
    .key = "derived", .open = derived_open, .finish = derived_finish, .render = derived_render, .close = fake_close};

static const section_analysis *const SECTIONS_UNDER_TEST[] = {&FAKE, &DERIVED, NULL};

/* ---- fixtures ---- */
static const char TORCH_TRACE[] =
    "{\"distributedInfo\": {\"rank\": 5, \"world_size\": 8},\n"
    " \"deviceProperties\": [{\"id\": 0, \"name\": \"AMD Instinct\", \"totalGlobalMem\": 68702699520, \"numSms\": 104, \"warpSize\": 64}],\n"
    " \"traceEvents\": [\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 10.5, \"dur\": 3,\n"
    "   \"args\": {\"External id\": 7, \"Input Dims\": [[2, 3], [3, 4]], \"Input type\": [\"float\", \"float\"]}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 12.25, \"dur\": 1.0005,\n"
    "   \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 9, \"External id\": 7, \"grid\": [4, 1, 1], \"block\": [256, 1, 1]}},\n"
    "  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy DtoH (Device -> Host)\", \"pid\": 0, \"tid\": 7, \"ts\": 14, \"dur\": 2,\n"
    "   \"args\": {\"device\": 0, \"stream\": 7, \"bytes\": 4096}},\n"
    "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, \"ts\": 10, \"dur\": 9}\n"
    " ]}\n";

static const char KERNEL_CSV_HEADER[] =
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n";

static void mkdir_in(const char *dir, const char *sub) {
    char *p = NULL;
    ck_assert(asprintf(&p, "%s/%s", dir, sub) > 0);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    free(p);
}

static void analyze(const char *dir, int threads, run_analysis *out) {
    run_analysis_options o;
    run_analysis_defaults(&o);
    o.sections = SECTIONS_UNDER_TEST;
    o.threads = threads;
    ck_assert(run_analyze(dir, &o, out));
}

static const inventory_source *find_source(const run_analysis *a, const char *rel) {
    for (size_t i = 0; i < a->inventory.n; i++)
        if (!strcmp(a->inventory.src[i].rel, rel)) return &a->inventory.src[i];
    return NULL;
}

START_TEST(inventory_takes_ranks_and_a_rocprofv3_tree) {
    char *dir = tu_tempdir();
    tu_write_str(dir, "rank0.pt.trace.json", TORCH_TRACE);
    tu_write_str(dir, "worker_rank-1.pt.trace.json", TORCH_TRACE);
    tu_write_str(dir, "notes.txt", "not a profile\n");
    mkdir_in(dir, "host");
    tu_copy_fixture("rocprofv3/sdk_kernel_trace.csv", dir, "host/4242_kernel_trace.csv");
    tu_write_str(dir, "host/readme.md", "# nothing\n");
    run_analysis a;
    analyze(dir, 1, &a);
    ck_assert_uint_eq(a.inventory.n, 3);
    /* device-clock kernel sources first, then the torch traces, by path */
    ck_assert_str_eq(a.inventory.src[0].rel, "host/4242_kernel_trace.csv");
    ck_assert_str_eq(a.inventory.src[0].format->name, "kernel-trace-csv");
    ck_assert_str_eq(a.inventory.src[0].found_by, "*/*kernel_trace.csv");
    const inventory_source *r0 = find_source(&a, "rank0.pt.trace.json"), *r1 = find_source(&a, "worker_rank-1.pt.trace.json");
    ck_assert_ptr_nonnull(r0);
    ck_assert_ptr_nonnull(r1);
    ck_assert_str_eq(r0->format->name, "torch-trace-json");
    ck_assert_str_eq(r0->found_by, "sniff");
    ck_assert_int_eq(r0->rank, 0);
    ck_assert_int_eq(r1->rank, 1);
    ck_assert_ptr_null(find_source(&a, "notes.txt"));
    ck_assert_ptr_nonnull(strstr(a.json.data, "\"sources\""));
    run_analysis_free(&a);
    tu_rmrf(dir);
    free(dir);
}
END_TEST

/* npu_reference_dir outside the run directory is one more root, named by its last component */
START_TEST(inventory_takes_an_extra_root) {
    char *dir = tu_tempdir(), *ref = tu_tempdir();
    tu_copy_fixture("rocprofv3/sdk_kernel_trace.csv", ref, "durations.csv");
    tu_write_str(dir, "torch_profile.json", TORCH_TRACE);
    run_analysis_options o;
    run_analysis_defaults(&o);
    o.sections = SECTIONS_UNDER_TEST;
    o.cfg.npu_reference_dir = ref;
    run_analysis a;
    ck_assert(run_analyze(dir, &o, &a));
    ck_assert_uint_eq(a.inventory.n, 2);
    const char *base = strrchr(ref, '/') + 1;
    char rel[256];
    snprintf(rel, sizeof rel, "%s/durations.csv", base);
    const inventory_source *s = find_source(&a, rel);
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(s->found_by, "sniff");
    run_analysis_free(&a);
    /* inside the run directory it is not scanned twice */
    o.cfg.npu_reference_dir = dir;
    ck_assert(run_analyze(dir, &o, &a));
    ck_assert_uint_eq(a.inventory.n, 1);
    run_analysis_free(&a);
    tu_rmrf(dir);
    tu_rmrf(ref);
    free(dir);
    free(ref);
}
END_TEST

/* A symlinked file is followed by `goblind analyze`; the daemon (confine_root) does not even
 * sniff one that resolves outside its root. */
START_TEST(inventory_symlinks_and_confinement) {
    char *dir = tu_tempdir(), *outside = tu_tempdir();
    tu_copy_fixture("rocprofv3/sdk_kernel_trace.csv", outside, "k.csv");
    char *target = NULL, *link = NULL;
    ck_assert(asprintf(&target, "%s/k.csv", outside) > 0 && asprintf(&link, "%s/trace.csv", dir) > 0);
    ck_assert_int_eq(symlink(target, link), 0);
    run_analysis_options o;
    run_analysis_defaults(&o);
    o.sections = SECTIONS_UNDER_TEST;
    run_analysis a;
    ck_assert(run_analyze(dir, &o, &a));
    ck_assert_uint_eq(a.inventory.n, 1);
    ck_assert_ptr_nonnull(strstr(a.json.data, "\"fake\":{\"dispatches\":8}"));
    run_analysis_free(&a);
    o.parse.confine_root = dir;
    ck_assert(run_analyze(dir, &o, &a));
    ck_assert_uint_eq(a.inventory.n, 0);
    ck_assert_ptr_nonnull(strstr(a.json.data, "\"fake\":{\"dispatches\":0}"));
    run_analysis_free(&a);
    free(target);
    free(link);
    tu_rmrf(dir);
    tu_rmrf(outside);
    free(dir);
    free(outside);
}
END_TEST

/* A directory of more names than a walk looks at (LIST_MAX: 65,537) is listed as its smallest
 * names only, kept as a max-heap while readdir goes on (memory stays at LIST_MAX names, where
 * every name was held before): the trace named first is found, the one named last is not, the
 * cut is warned, and the listing's fingerprint follows the names kept. Memory itself is not
 * measured here (millions of files would be needed to see it). */
START_TEST(inventory_lists_the_smallest_names_of_a_huge_directory) {
    char *dir = tu_tempdir();
    tu_write_str(dir, "0rank0.pt.trace.json", TORCH_TRACE);
    tu_write_str(dir, "zz_rank1.pt.trace.json", TORCH_TRACE);
    for (int i = 0; i < LIST_MAX + 3000; i++) {
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/f%06d", dir, i);
        int fd = open(p, O_CREAT | O_WRONLY, 0644);
        ck_assert_int_ge(fd, 0);
        close(fd);
    }
    run_analysis a;
    analyze(dir, 1, &a);
    ck_assert_ptr_nonnull(find_source(&a, "0rank0.pt.trace.json"));
    ck_assert_ptr_null(find_source(&a, "zz_rank1.pt.trace.json"));
    bool warned = false;
    for (size_t i = 0; i < a.diag.count; i++) warned |= strstr(a.diag.items[i], "after the first 65537 by name") != NULL;
    ck_assert(warned);
    run_analysis_free(&a);
    /* the listing's fingerprint covers what the walk looks at: a name past the cut changes
     * nothing (it was hashed when every name was held), one among the first names does */
    uint64_t h0 = run_inventory_listing_hash(dir, NULL);
    tu_write_str(dir, "zzz_late.txt", "x\n");
    ck_assert_uint_eq(run_inventory_listing_hash(dir, NULL), h0);
    tu_write_str(dir, "00_early.txt", "x\n");
    ck_assert_uint_ne(run_inventory_listing_hash(dir, NULL), h0);
    tu_rmrf(dir);
    free(dir);
}
END_TEST

START_TEST(rank_names) {
    ck_assert_int_eq(run_inventory_rank_from_name("rank-34.Jul_15.pt.trace.json.gz"), 34);
    ck_assert_int_eq(run_inventory_rank_from_name("trace_rank_2.json"), 2);
    ck_assert_int_eq(run_inventory_rank_from_name("rank7.json"), 7);
    ck_assert_int_eq(run_inventory_rank_from_name("ranking.json"), -1);
    ck_assert_int_eq(run_inventory_rank_from_name("torch_profile.json"), -1);
}
END_TEST

/* The device clock wins: the kernel trace's dispatches are delivered, the torch trace's not
 * (its CPU ops still are); without a kernel trace, or with one that has no kernel row, the
 * torch trace's kernels are delivered. On one thread and on two. */
START_TEST(kernel_source_choice) {
    for (int threads = 1; threads <= 2; threads++) {
        char *dir = tu_tempdir();
        tu_write_str(dir, "torch_profile.json", TORCH_TRACE);
        tu_copy_fixture("rocprofv3/sdk_kernel_trace.csv", dir, "trace.csv");
        run_analysis a;
        analyze(dir, threads, &a);
        ck_assert_uint_eq(a.inventory.n, 2);
        ck_assert_ptr_nonnull(strstr(a.json.data, "\"fake\":{\"dispatches\":8}"));
        ck_assert_ptr_nonnull(strstr(a.json.data, "\"derived\":16"));
        ck_assert_ptr_nonnull(strstr(a.json.data, "\"kernels_chosen\":false"));
        ck_assert_ptr_nonnull(strstr(a.json.data, "\"records_not_delivered\":2"));
        run_analysis_free(&a);
        /* a kernel trace with a header only: the torch trace's kernel is delivered */
        tu_write_str(dir, "trace.csv", KERNEL_CSV_HEADER);
        analyze(dir, threads, &a);
        ck_assert_ptr_nonnull(strstr(a.json.data, "\"fake\":{\"dispatches\":1}"));
        ck_assert_ptr_null(strstr(a.json.data, "\"kernels_chosen\":false"));
        /* (on two threads the torch trace is read beside the kernel trace, betting on its
         * dispatches; lost here, it is read again with its kernels: counted once) */
        ck_assert_ptr_nonnull(strstr(a.json.data, "\"cpu_op\":1,"));
        ck_assert_ptr_null(strstr(a.json.data, "\"cpu_op\":2"));
        run_analysis_free(&a);
        tu_rmrf(dir);
        free(dir);
    }
}
END_TEST

/* Every source is folded exactly once, in source order, on two threads too; the rank from
 * distributedInfo reaches the analyses when the name says none. */
START_TEST(fan_out_in_source_order) {
    char *dir = tu_tempdir();
    char name[64];
    for (int i = 0; i < 7; i++) {
        snprintf(name, sizeof name, "t%d.pt.trace.json", i);
        tu_write_str(dir, name, TORCH_TRACE);
    }
    for (int threads = 1; threads <= 2; threads++) {
        run_analysis_options o;
        run_analysis_defaults(&o);
        o.sections = SECTIONS_UNDER_TEST;
        o.threads = threads;
        /* the run state is closed inside run_analyze: check through the document */
        run_analysis a;
        ck_assert(run_analyze(dir, &o, &a));
        ck_assert_uint_eq(a.sources_read, 7);
        ck_assert_ptr_nonnull(strstr(a.json.data, "\"fake\":{\"dispatches\":7}"));
        /* sources listed in inventory order, each with its records by type and rank 5 */
        const char *p = a.json.data;
        for (int i = 0; i < 7; i++) {
            snprintf(name, sizeof name, "\"path\":\"t%d.pt.trace.json\"", i);
            const char *q = strstr(p, name);
            ck_assert_msg(q != NULL, "source %d missing or out of order", i);
            p = q + 1;
        }
        ck_assert_ptr_nonnull(strstr(a.json.data, "\"rank\":5"));
        ck_assert_ptr_nonnull(strstr(a.json.data, "\"cpu_op\":1"));
        run_analysis_free(&a);
    }
    tu_rmrf(dir);
    free(dir);
}
END_TEST

/* end_source order seen by the analysis itself (not only the document) */
static fake_run *last_run;
static void *order_open(const analysis_config *cfg, diag_list *d) { (void)cfg; (void)d; return last_run = calloc(1, sizeof(fake_run)); }
static void order_close(void *run) { (void)run; }
static const section_analysis ORDER = {
    .key = "order", .wants = REC_BIT(REC_METADATA), .open = order_open, .open_source = fake_open_source,
    .consume = fake_consume, .end_source = fake_end_source, .finish = fake_finish, .render = fake_render,
    .close = order_close};

START_TEST(end_source_order) {
    char *dir = tu_tempdir();
    char name[64];
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof name, "r%d_rank%d.pt.trace.json", i, 10 + i);
        tu_write_str(dir, name, TORCH_TRACE);
    }
    static const section_analysis *const ONLY[] = {&ORDER, NULL};
    run_analysis_options o;
    run_analysis_defaults(&o);
    o.sections = ONLY;
    run_analysis a;
    ck_assert(run_analyze(dir, &o, &a));
    ck_assert_ptr_nonnull(last_run);
    ck_assert_uint_eq(last_run->n_ends, 5);
    for (size_t i = 0; i < 5; i++) {
        ck_assert_uint_eq(last_run->order[i], i);
        ck_assert_int_eq(last_run->rank[i], 10 + (int)i);    /* the name's rank wins over the metadata's */
    }
    ck_assert_uint_eq(last_run->metadata, 5 * 6);   /* rank, world_size and 4 device properties per file */
    free(last_run);
    last_run = NULL;
    run_analysis_free(&a);
    tu_rmrf(dir);
    free(dir);
}
END_TEST

/* A large file read in two pieces (every analysis receiving its records splittable): the pieces are
 * folded in file order (piece 0 then 1 of the same source) and give what one pass gives. */
static const section_analysis SPLIT_ORDER = {
    .key = "order", .splittable = true,
    .wants = REC_BIT(REC_KERNEL_DISPATCH) | REC_BIT(REC_MEMORY_COPY) | REC_BIT(REC_CPU_OP) | REC_BIT(REC_METADATA),
    .open = order_open, .open_source = fake_open_source, .consume = fake_consume, .end_source = fake_end_source,
    .finish = fake_finish, .render = fake_render, .close = order_close};

START_TEST(split_read_folds_in_order) {
    char *dir = tu_tempdir();
    /* one trace of many events, written as trace writers do (",\n{" between events) */
    strbuf b = {0};
    const char *head = "{\"distributedInfo\": {\"rank\": 2},\n \"traceEvents\": [\n";
    strbuf_append(&b, head, strlen(head));
    for (int i = 0; i < 4000; i++) {
        char ev[256];
        int n = snprintf(ev, sizeof ev, "%s{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"k%d\", \"ts\": %d.5, \"dur\": 1.25, "
                         "\"args\": {\"device\": 0, \"stream\": 1}}", i ? ",\n" : "", i % 3 ? "kernel" : "cpu_op", i, i * 3);
        strbuf_append(&b, ev, (size_t)n);
    }
    strbuf_append(&b, "\n]}\n", 4);
    tu_write(dir, "torch_profile.json", b.data, b.len);
    strbuf_free(&b);
    static const section_analysis *const ONLY[] = {&SPLIT_ORDER, NULL};
    uint64_t totals[2][3];
    for (int threads = 1; threads <= 2; threads++) {
        run_analysis_options o;
        run_analysis_defaults(&o);
        o.sections = ONLY;
        o.threads = threads;
        o.parse.split_min_bytes = 1;
        o.parse.split_cut_first = true;     /* (a cut that does not depend on timing) */
        run_analysis a;
        ck_assert(run_analyze(dir, &o, &a));
        ck_assert_ptr_nonnull(last_run);
        if (threads == 2) {
            ck_assert_ptr_nonnull(strstr(a.json.data, "\"pieces\":2"));
            ck_assert_uint_eq(last_run->n_ends, 2);          /* piece 0, then piece 1, of source 0 */
            ck_assert_uint_eq(last_run->order[0], 0);
            ck_assert_uint_eq(last_run->order[1], 0);
            ck_assert_uint_gt(last_run->per_source[0], 0);
        } else {
            ck_assert_ptr_nonnull(strstr(a.json.data, "\"pieces\":1"));
            ck_assert_uint_eq(last_run->n_ends, 1);
        }
        totals[threads - 1][0] = last_run->dispatches;
        totals[threads - 1][1] = last_run->cpu_ops;
        totals[threads - 1][2] = last_run->metadata;
        ck_assert_ptr_nonnull(strstr(a.json.data, "\"kernel_dispatch\":2666"));
        ck_assert_ptr_nonnull(strstr(a.json.data, "\"cpu_op\":1334"));
        free(last_run);
        last_run = NULL;
        run_analysis_free(&a);
    }
    ck_assert_uint_eq(totals[0][0], 2666);
    ck_assert_uint_eq(totals[1][0], totals[0][0]);
    ck_assert_uint_eq(totals[1][1], totals[0][1]);
    ck_assert_uint_eq(totals[1][2], totals[0][2]);
    tu_rmrf(dir);
    free(dir);
}
END_TEST

/* The records state on bytes: an operator's input shapes as compact JSON, dropped (not grown
 * without bound) past 16 KiB; a ProfilerStep of another category is an annotation. */
typedef struct shapes_seen { int ops, steps; bool args_null; char args[256]; } shapes_seen;
static bool keep_shapes(void *user, const record *r) {
    shapes_seen *s = user;
    if (r->type == REC_ANNOTATION) s->steps++;
    if (r->type != REC_CPU_OP) return true;
    if (s->ops++ == 0 && r->args) snprintf(s->args, sizeof s->args, "%.*s", (int)r->args_len, r->args);
    if (s->ops == 2) s->args_null = r->args == NULL;
    return true;
}

START_TEST(torch_records_shapes) {
    strbuf b = {0};
    const char *head = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"ts\": 1, \"dur\": 2, "
                       "\"args\": {\"Input Dims\": [[2, 3], []], \"Sequence number\": 4, \"Input type\": [\"float\", \"\\\"q\"]}},\n"
                       "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"big\", \"ts\": 3, \"dur\": 1, \"args\": {\"Input Dims\": [";
    strbuf_append(&b, head, strlen(head));
    for (int i = 0; i < 10000; i++) strbuf_append(&b, i ? ",[1,2]" : "[1,2]", i ? 6 : 5);
    const char *tail = "]}},\n{\"ph\": \"X\", \"cat\": \"Trace\", \"name\": \"ProfilerStep#3\", \"ts\": 0, \"dur\": 9}]}";
    strbuf_append(&b, tail, strlen(tail));
    shapes_seen seen = {0};
    record_sink sink = {.emit = keep_shapes, .user = &seen, .fields = ~0u};
    parse_options opt = {0};
    read_facts f = {0};
    diag_list d;
    diag_init(&d);
    void *st = torch_records_open(&opt, "t.json", &sink, &f, &d);
    ck_assert(torch_records_feed(st, (const uint8_t *)b.data, b.len));
    torch_records_finish(st);
    torch_records_close(st);
    ck_assert_int_eq(seen.ops, 2);
    ck_assert_str_eq(seen.args, "{\"Input Dims\":[[2,3],[]],\"Input type\":[\"float\",\"\\\"q\"]}");
    ck_assert(seen.args_null);
    ck_assert_int_eq(seen.steps, 1);
    ck_assert_uint_eq(d.count, 0);
    read_facts_free(&f);
    diag_free(&d);
    strbuf_free(&b);
}
END_TEST

static bool count_meta(void *user, const record *r) {
    if (r->type == REC_METADATA) (*(int *)user)++;
    return true;
}

/* metadata and distributedInfo as lists (not objects) give no keys, so no metadata record */
START_TEST(torch_records_metadata_lists) {
    const char *doc = "{\"metadata\": [\"2.5\"], \"distributedInfo\": [3, 8], \"cupti_version\": 24, \"traceEvents\": []}";
    int n = 0;
    record_sink sink = {.emit = count_meta, .user = &n, .fields = ~0u};
    parse_options opt = {0};
    read_facts f = {0};
    diag_list d;
    diag_init(&d);
    void *st = torch_records_open(&opt, "t.json", &sink, &f, &d);
    ck_assert(torch_records_feed(st, (const uint8_t *)doc, strlen(doc)));
    torch_records_finish(st);
    torch_records_close(st);
    ck_assert_int_eq(n, 2);      /* cupti_version and vendor NVIDIA */
    read_facts_free(&f);
    diag_free(&d);
}
END_TEST

START_TEST(torch_times_in_fixed_point) {
    i128 ns;
    ck_assert(torch_us_text_ns("4203669603454.206", 17, &ns));
    ck_assert(ns == (i128)4203669603454206LL);
    ck_assert(torch_us_text_ns("1.0005", 6, &ns) && ns == 1001);      /* half away from zero */
    ck_assert(torch_us_text_ns("1.0004", 6, &ns) && ns == 1000);
    ck_assert(torch_us_text_ns("1e3", 3, &ns) && ns == 1000000);
    ck_assert(torch_us_text_ns("2.5E-3", 6, &ns) && ns == 3);
    ck_assert(torch_us_text_ns("-2", 2, &ns) && ns == -2000);
    ck_assert(torch_us_text_ns("12", 2, &ns) && ns == 12000);
    /* the int64 fast path and the general path agree */
    ck_assert(torch_us_text_ns("123.4", 5, &ns) && ns == 123400);
    ck_assert(torch_us_text_ns("0.001", 5, &ns) && ns == 1);
    ck_assert(torch_us_text_ns("5", 1, &ns) && ns == 5000);
    ck_assert(torch_us_text_ns("1.", 2, &ns) && ns == 1000);
    ck_assert(torch_us_text_ns(".5", 2, &ns) && ns == 500);
    ck_assert(torch_us_text_ns("123456789012345.678", 19, &ns) && ns == (i128)123456789012345678LL);
    ck_assert(torch_us_text_ns("1234567890123456.7", 18, &ns) && ns == (i128)1234567890123456700LL);
    ck_assert(torch_us_text_ns("9999999999999999999", 19, &ns) && ns == (i128)9999999999999999999ULL * 1000);
    ck_assert(!torch_us_text_ns("abc", 3, &ns));
    ck_assert(!torch_us_text_ns("1.5x", 4, &ns));
    /* a zero with a huge exponent is 0 at once (was a million-step scaling loop per value);
     * a non-zero one overflows: unknown */
    ck_assert(torch_us_text_ns("0e999999", 8, &ns) && ns == 0);
    ck_assert(torch_us_text_ns("0.000e999999", 12, &ns) && ns == 0);
    ck_assert(!torch_us_text_ns("1e999999", 8, &ns));
}
END_TEST

/* Ids read from torch args: a wrong number is worse than none. */
static bool id_of(const char *text, size_t len, int64_t *v) {
    jt_token t = {.kind = JT_STRING, .text = text, .len = len};
    return torch_token_i64(&t, v);
}

START_TEST(torch_ids_never_wrong) {
    int64_t v;
    ck_assert(id_of("7", 1, &v) && v == 7);
    ck_assert(id_of("-12", 3, &v) && v == -12);
    ck_assert(id_of("0x1f", 4, &v) && v == 31);                 /* "0x0" streams */
    ck_assert(id_of("010", 3, &v) && v == 10);                  /* decimal, never octal */
    ck_assert(id_of("+010", 4, &v) && v == 10);
    ck_assert(id_of("0000000000000000010", 19, &v) && v == 10);
    ck_assert(id_of("9223372036854775807", 19, &v) && v == INT64_MAX);
    ck_assert(!id_of("99999999999999999999", 20, &v));          /* past int64: unknown */
    ck_assert(!id_of("\0abc", 4, &v));                           /* "\u0000abc": unknown, not 0 */
    ck_assert(!id_of("7\0x", 3, &v));
    ck_assert(!id_of("   ", 3, &v));
    ck_assert(!id_of("stream 7", 8, &v));
}
END_TEST

static Suite *run_analysis_suite(void) {
    Suite *s = suite_create("run_analysis");
    TCase *tc = tcase_create("driver");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, inventory_takes_ranks_and_a_rocprofv3_tree);
    tcase_add_test(tc, inventory_takes_an_extra_root);
    tcase_add_test(tc, inventory_symlinks_and_confinement);
    tcase_add_test(tc, inventory_lists_the_smallest_names_of_a_huge_directory);
    tcase_add_test(tc, rank_names);
    tcase_add_test(tc, kernel_source_choice);
    tcase_add_test(tc, fan_out_in_source_order);
    tcase_add_test(tc, end_source_order);
    tcase_add_test(tc, split_read_folds_in_order);
    tcase_add_test(tc, torch_times_in_fixed_point);
    tcase_add_test(tc, torch_ids_never_wrong);
    tcase_add_test(tc, torch_records_shapes);
    tcase_add_test(tc, torch_records_metadata_lists);
    suite_add_tcase(s, tc);
    return s;
}

Suite *run_split_suite(void);   /* check_run_split.c */

int main(void) {
    SRunner *sr = srunner_create(run_analysis_suite());
    srunner_add_suite(sr, run_split_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
