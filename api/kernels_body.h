/* kernels_body: the JSON of /runs/<id>/kernels, one row at a time, either into memory (small
 * limits) or through a body_stream from a kernel_cursor (large ones). One definition of a
 * kernel's JSON for both. */
#ifndef GOBLIN_KERNELS_BODY_H
#define GOBLIN_KERNELS_BODY_H

#include "api/body_stream.h"
#include "base/json_writer.h"
#include "storage/store.h"

/* One kernel object: name, class, calls, total_ns, avg_ns, min_ns, max_ns, pct_time, gemm,
 * collective, generic_gemm. */
void kernels_body_row(jw_out *j, const kernel_row *k);
/* The body's head, after the opening brace: "run", "source" ("run_metrics" | "analysis" | null:
 * where the rows came from, storage/run_gauges.h), "source_formats" (the formats that gave
 * them) and the "kernels" key; the caller then writes the rows' array. source and formats
 * as store_kernels_source gives them ("" when none). */
void kernels_body_head(jw_out *j, const char *run_id, const char *source, const char *formats);

typedef struct kernels_job kernels_job;
/* What a producer needs (source and formats as for kernels_body_head); NULL when out of
 * memory. Freed with kernels_job_free. */
kernels_job *kernels_job_new(store *st, const char *run_id, kernel_sort sort, int limit, const char *source,
                             const char *formats);
void kernels_job_free(void *job);
/* The body_producer: {"run": id, "kernels": [...]} from a cursor of its own. */
bool kernels_body_produce(body_stream *s, void *job);

#endif
