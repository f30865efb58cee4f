/* artefact: the contract every format parser implements, and the summaries they produce.
 *
 * A run has three kinds of artefact (kernel trace, torch profile, telemetry). Each kind
 * has one summary struct; each file format that can supply that kind is one
 * artefact_parser: push-style (bytes in, any chunk size), no I/O, no globals. Adding a
 * format (rocpd SQLite, rocprofv3 JSON, nvidia-smi CSV, ...) is a new file with one
 * artefact_parser plus one line in parser_registry.c.
 *
 * A format may also offer to be read in two pieces on two threads (the three optional
 * hooks below): a second state starts at a resume point in the middle of the file,
 * assuming where the document stands there; the first state reads up to that point and
 * the join checks the assumption. Results must be exactly those of one sequential read,
 * so a join that cannot promise that declines, and the first state reads on alone. */
#ifndef GOBLIN_ARTEFACT_H
#define GOBLIN_ARTEFACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/opt_num.h"
#include "base/diag.h"
#include "core/artefact_kind.h"
#include "parsers/kernel_table.h"
#include "parsers/record.h"


/* Bounds on one parse (the daemon's): a gzip bomb or a sparse multi-GB file must not hold a
 * worker for minutes, and shutdown must not wait for a parse. The reader checks them before
 * every chunk; an artefact stopped by one is dropped whole, with a warning saying why. */
typedef struct parse_limits {
    uint64_t max_bytes;      /* bytes fed to a parser per artefact (after inflation); 0: none */
    int64_t deadline_ms;     /* CLOCK_MONOTONIC milliseconds; 0: none */
    int max_seconds;         /* what deadline_ms came from, for the warning */
    const _Atomic bool *cancel;  /* set: stop at once (shutdown) */
} parse_limits;

typedef struct parse_options {
    bool seed_compat;        /* the original heuristics (see docs/HEURISTICS.md) */
    /* Set (by the kernel-trace parser) once the kernel trace has yielded a kernel row; the
     * torch parser then stops collecting its own GPU kernel events, which are only used when
     * the kernel trace yields none. NULL: always collect. Only a speed hint: results never
     * depend on when it is seen. */
    _Atomic bool *kernel_rows_seen;
    const char *confine_root;/* when set (the daemon), artefacts resolving outside it are not read */
    uint64_t split_min_bytes;/* smallest piece worth a thread (0: 4 MiB); tests lower it */
    /* the run driver's split reads (core/run_split) place the cut before the read, as with a
     * passenger, not while the head is read: where it falls does not depend on timing (tests) */
    bool split_cut_first;
    const parse_limits *limits;  /* NULL: unbounded (goblind parse) */
} parse_options;


/* How one file was read, for `goblind parse --explain`, GET /runs/<id> and `goblind show`:
 * the column chosen for each quantity, rows used and rows skipped by reason, and (torch
 * profile) where steps and the step time came from. Strings are static except columns. */
#define READ_COLUMNS_MAX 8
#define SNIFF_OUT_OF_MEMORY (-2)   /* sniff_file(): memory ran out, the file's format is not known */
#define READ_SKIPS_MAX 8
typedef struct read_facts {
    size_t n_columns;
    struct { const char *quantity; char *column; } columns[READ_COLUMNS_MAX];  /* column NULL: none */
    uint64_t rows_used;
    size_t n_skips;
    struct { const char *reason; uint64_t rows; } skipped[READ_SKIPS_MAX];
    const char *steps_source;      /* torch profile: flag | metadata | profiler_steps | default; else NULL */
    const char *step_time_source;  /* torch profile: metadata | profiler_steps | span | span_per_step | none */
    bool truncated;                /* the last record was cut (a file still being written?) */
    /* discovery: the name pattern that found the file (NULL: none matched, the expected
     * name was tried) and the chosen format's sniff score (0-100) */
    const char *found_by;
    int sniff_score;
    bool out_of_memory;            /* a column's name could not be kept: the facts are partial */
} read_facts;

/* Adds `rows` (> 0) to the skip count of `reason` (a static string). */
void read_facts_skip(read_facts *f, const char *reason, uint64_t rows);
/* Records the column chosen for `quantity` (copied; NULL: none). false on OOM (then also
 * f->out_of_memory, which whoever ends the read turns into a diag_oom warning). */
bool read_facts_column(read_facts *f, const char *quantity, const char *column);
/* Frees the copied column names and reasons; f is then empty. */
void read_facts_free(read_facts *f);

typedef struct kernel_summary {
    kernel_table kernels;
    read_facts facts;
    bool complete;           /* the whole file parsed (no truncated last record) */
} kernel_summary;

typedef struct torch_summary {
    opt_num tokens_per_sec, mfu_pct, step_time_seconds, host_busy_fraction;
    int64_t n_steps;         /* 0 = None */
    int64_t profiled_steps;  /* 0 = None */
    char *pytorch_version;   /* NULL = None */
    bool complete;           /* the document parsed to its end */
    /* default mode: step_time_seconds is the whole trace span (no ProfilerStep events, no
     * metadata step time); the heuristics divide it by the step count */
    bool step_time_is_span;
    uint64_t step_events;    /* ProfilerStep events counted (each rank's copy), for --explain */
    /* default mode: GPU kernel events (cat kernel), used when the kernel trace has none */
    kernel_table kernels;
    read_facts facts;
} torch_summary;

typedef struct telemetry_summary {
    opt_num hbm_peak_gb, hbm_avg_gb, gpu_util_pct;
    char *rocm_version;      /* NULL = None */
    uint64_t samples;
    read_facts facts;
} telemetry_summary;

#define SNIFF_BYTES 512

/* Whether a format's files carry kernel dispatches (with their copies and memsets), and on
 * which clock. Several sources of one run often carry the same kernels (a rocprofv3 trace
 * and the torch profile; a kernel_trace.csv and the results.json of the same rocprofv3
 * run): the run driver (core/run_analysis) delivers one family's only, device clocks first,
 * so nothing is counted twice. */
typedef enum {
    KERNELS_BY_KIND = 0,     /* ARTEFACT_KERNEL_TRACE: device; ARTEFACT_TORCH_PROFILE: host; else none */
    KERNELS_NONE,            /* no dispatches (API calls, telemetry, stats, copies-only traces...) */
    KERNELS_DEVICE_CLOCK,    /* dispatches timed by the device (rocprofv3, rocpd, nsys, nvprof) */
    KERNELS_HOST_TRACE,      /* dispatches as a host-side profiler saw them (torch.profiler) */
} kernel_source_kind;

/* A second reading of the same bytes by the same format, with a state of its own (its
 * options, its name for the file, its sink, facts and warnings): RunMetrics' beside the
 * analysis document's in the daemon's ingest (artefact_parser.open_records_pair). */
typedef struct record_reading {
    const parse_options *opt;
    const char *label;
    const record_sink *sink;
    read_facts *facts;
    diag_list *diag;
} record_reading;

typedef struct artefact_parser {
    const char *name;                 /* short format id, e.g. "rocprof-kernel-csv" */
    /* the profile family a run holding a file of this format belongs to (docs/API.md "profile":
     * rocprofv3, rocpd, rocprof, kineto, nsys, nvprof, smi, msprof, aie); never NULL */
    const char *family;
    artefact_kind kind;
    kernel_source_kind kernels;       /* see kernel_source_kind (0: by kind) */
    /* REC_BIT()s of the record types its open_records state may emit to a sink that does not
     * name REC_TRACE_EVENT (the analysis document's); 0: unknown, any. The run driver splits a
     * file only when every analysis that would receive its records can take two pieces
     * (analyses/section.h), so a format that says what it emits splits more often. */
    unsigned emits;
    /* A byte-stream format whose open_records, given a sink naming REC_TRACE_EVENT and typed
     * types, emits both from one read of the bytes (torch-trace-json): the daemon's ingest
     * then hands RunMetrics' passenger the driver's records, not a copy of the bytes
     * (core/run_ingest), and the file is tokenized once. */
    bool shares_records;
    /* Optional, for a byte-stream format read by two readers at once (kernel-trace-csv,
     * amd-smi-csv, nvidia-smi-csv): a state reading for the caller (opt .. diag, as
     * open_records) and for `second` (as open_records would for it), each with a state of its
     * own, from one tokenization; each sees exactly what its own read would. feed, finish,
     * close and join take it. The daemon's ingest reads RunMetrics' kernel trace and
     * telemetry so (core/run_ingest). A format that splits (open_records_resumed) has the
     * resumed twin too (tests/registry_check.py). */
    void *(*open_records_pair)(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                               diag_list *diag, const record_reading *second);
    void *(*open_records_pair_resumed)(const parse_options *opt, const char *label, const record_sink *sink,
                                       read_facts *facts, diag_list *diag, const record_reading *second,
                                       uint64_t offset, const uint8_t *head, size_t head_n);
    /* Where files of this format lie in a run directory, most preferred first: shell
     * patterns (fnmatch) of a name in the run directory; a pattern with one slash matches a
     * sub-directory name and a name inside it (rocprofv3 writes <host>/<pid>_kernel_trace.csv).
     * Discovery (core/run_files) takes, per kind, the first pattern of the first format
     * (registry order) that matches, the smallest name when several do. NULL-terminated. */
    const char *const *names;
    /* How well this format fits a file: 0 (not at all) to 100 (certain), from the file's
     * base name and first bytes (SNIFF_BYTES, fewer for a short file). The reader takes
     * the highest score among the formats of the file's kind. */
    int (*sniff)(const char *name, const uint8_t *head, size_t n);
    /* Optional, for a format whose first bytes do not tell it from another's (SQLite files):
     * 0 to 100 from the file itself (its schema), read through fd, the descriptor the run
     * inventory opened with artefact_open's checks (left open: the caller closes it), -1 when
     * the file cannot be read so (a corrupt database), SNIFF_OUT_OF_MEMORY when memory ran out
     * (the inventory then fails as an allocation failure), asked by the run inventory
     * (core/run_inventory) only when sniff() accepted the first bytes. Reads, emits nothing. */
    int (*sniff_file)(int fd);
    /* A format emits records: its records go to `sink` (the analysis of its kind,
     * analyses/, or the analysis document's), how it read the file to `facts`. label names
     * the file in warnings. */
    void *(*open_records)(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                          diag_list *diag);
    /* false: the parser needs no more input (a fatal error was recorded). */
    bool (*feed)(void *state, const uint8_t *buf, size_t n);
    /* Instead of feed, for a format that is not a byte stream (an SQLite database): reads
     * the whole file through fd, the reader's already checked and opened descriptor (left
     * open), never by name; path names the same file for companion-file warnings only
     * (a database's -wal; may be NULL). false after a warning: nothing from the file is kept. */
    bool (*read_fd)(void *state, int fd, const char *path);
    void (*finish)(void *state);      /* end of input: completes the summary */
    void (*close)(void *state);       /* frees the state (not the summary) */

    /* Optional (resume_point, join and open_records_resumed: all or none).
     * Where a second state could start in buf, the bytes at some offset of the file: an
     * index into buf, or n when there is no such place. */
    size_t (*resume_point)(const uint8_t *buf, size_t n);
    /* A state that starts at file offset `offset`, a resume point: its records go to the
     * second piece's analysis state, its facts to a scratch copy until the join. head holds
     * the file's first bytes (a CSV format reads its header there). NULL: it cannot start
     * there (the read is not split). */
    void *(*open_records_resumed)(const parse_options *opt, const char *label, const record_sink *sink,
                                  read_facts *facts, diag_list *diag, uint64_t offset, const uint8_t *head,
                                  size_t head_n);
    /* `first` has been fed exactly the bytes before second's offset, `second` the rest.
     * true: second now stands for the whole file (first's results folded in, in file
     * order; a record format's second state then writes first's facts); finish(second)
     * completes the summary. false (nothing changed): first is not where second assumed,
     * or second cannot be folded in exactly; first must read on from the offset. The
     * analyses' own joins (analysis.can_join / join) decide for their float sums. */
    bool (*join)(void *first, void *second);
} artefact_parser;

/* The kernel source format p declares, KERNELS_BY_KIND resolved by its kind: never
 * KERNELS_BY_KIND. */
static inline kernel_source_kind artefact_kernel_source(const artefact_parser *p) {
    if (p->kernels != KERNELS_BY_KIND) return p->kernels;
    return p->kind == ARTEFACT_KERNEL_TRACE ? KERNELS_DEVICE_CLOCK
         : p->kind == ARTEFACT_TORCH_PROFILE ? KERNELS_HOST_TRACE : KERNELS_NONE;
}

/* Free what a summary owns (names, tables, strings); the struct itself is the caller's. */
void kernel_summary_free(kernel_summary *s);
void torch_summary_free(torch_summary *s);
void telemetry_summary_free(telemetry_summary *s);

#endif
