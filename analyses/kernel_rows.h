/* kernel_rows: one labelled row per kernel dispatch, for the per-kernel export (`goblind export
 * --kernels`, GET /runs/<id>/kernels.csv, core/kernel_export.c).
 *
 * Two passes over a run's sources, driven by core/run_analysis like any section read:
 *
 *   1. kernel_labels_analysis (with layers_analysis before it) keeps, per source file, what
 *      the labels need that may come after the kernel in the file: the vLLM step annotations
 *      (phases), the launch calls by correlation id, the CPU operators by External id, the
 *      user Python frames (ops), and the layers section's layers. Memory: those tables only,
 *      within the bounds below, never the kernels.
 *   2. kernel_rows_analysis takes the chosen kernel dispatches (those the kernels section
 *      counts: a name and a duration, barrier packets left out) in file order and hands each
 *      one, labelled from the tables, to the context's writer.
 *
 * The joins are the sections': phase as phases (the step holding the launch call's start, else
 * the GPU-lane step holding the kernel's start), layer as layers (the layer of the kernel's
 * group whose span holds its start), CPU operator as ops (by External id, else through the
 * launch call's External id), and the Python frame as ops names it (the innermost user frame
 * enclosing the operator's call); a kernel without operator whose launch call lies in a user
 * Python frame (a CUDA/HIP graph replay) is owned by that frame (owner "python_frame"). */
#ifndef GOBLIN_KERNEL_ROWS_H
#define GOBLIN_KERNEL_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyses/section.h"

/* Bounds of the labelling tables over the whole run (entries past them are not kept, and
 * the labels they would give are absent; kernel_rows_dropped counts them). */
#define KROWS_MAX_LAUNCHES ((size_t)1 << 18)   /* launch calls (40 B + ~24 B of index each) */
#define KROWS_MAX_OPS ((size_t)1 << 18)        /* CPU operators with an External id (24 B + index) */
#define KROWS_MAX_STEPS ((size_t)1 << 17)      /* step annotations (24 B) */
#define KROWS_MAX_LAYERS ((size_t)1 << 17)     /* layers (40 B) */
#define KROWS_MAX_FRAMES ((size_t)1 << 18)     /* user Python frames (40 B) */
#define KROWS_MAX_NAME_BYTES ((size_t)24 << 20)/* operator and frame names, each counted with
                                                * STR_POOL_ENTRY_BYTES (a file's operators and
                                                * frames go with its names past it) */

/* One row. Strings live until the writer returns; NULL (and absent numbers) when unknown. */
typedef struct krow {
    int64_t start_ns, end_ns, duration_ns;
    bool has_start, has_end;
    int64_t device, stream;
    bool has_device, has_stream;
    int rank;                   /* -1: unknown */
    const char *name;
    size_t name_len;
    const char *cls;            /* kernel_class_key */
    const char *phase;          /* prefill, decode, mixed, idle, or none */
    int64_t layer;              /* -1: in no layer */
    const char *cpu_op, *python_frame;
    size_t cpu_op_len, python_frame_len;
    const char *owner;          /* "operator", "python_frame" (graph replay) or NULL */
} krow;

/* Takes one row; false stops the read (a write error). */
typedef bool (*kernel_row_fn)(void *user, const krow *row);

typedef struct kernel_rows_ctx kernel_rows_ctx;

/* A context for one export: pass 1 fills its tables, pass 2 writes rows to fn. NULL on OOM. */
kernel_rows_ctx *kernel_rows_new(kernel_row_fn fn, void *user);
/* Rows written so far, and entries of the labelling tables not kept (the bounds above). */
uint64_t kernel_rows_written(const kernel_rows_ctx *c);
uint64_t kernel_rows_dropped(const kernel_rows_ctx *c);
/* Whether the writer refused a row (the read stopped there). */
bool kernel_rows_write_failed(const kernel_rows_ctx *c);
void kernel_rows_free(kernel_rows_ctx *c);

extern const section_analysis kernel_labels_analysis;   /* pass 1 (after layers_analysis) */
extern const section_analysis kernel_rows_analysis;     /* pass 2: the kernels section's kernels */
/* pass 2: the host trace's kernels (torch.profiler) when the run has one, those ops, phases and
 * layers join (section_analysis.host_clock); else the same as kernel_rows_analysis */
extern const section_analysis kernel_rows_host_analysis;

#endif
