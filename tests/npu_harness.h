/* npu_harness: the check_npu suites' harness: formats over in-memory files, then the four
 * npu sections (npu_ops, npu_hotspots, aie_cores, aie_aggregate), their JSON parsed with
 * jansson, their report.md parts and their numbers by path. */
#ifndef GOBLIN_NPU_HARNESS_H
#define GOBLIN_NPU_HARNESS_H

#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "parsers/artefact.h"

/* One input: a format, a label (its path) and its bytes. */
typedef struct input { const char *format, *label, *text; } input;

typedef struct doc {
    json_t *numbers;         /* "key/path" -> the number, for the ones known */
    json_t *json;            /* the four sections */
    char *md;                /* their report.md parts */
    diag_list diag;
} doc;

/* Reads each input (in 7-byte chunks) into the four sections, finishes and renders them. */
void run_doc(const input *in, size_t n, doc *d);
void doc_free(doc *d);
/* True when a warning contains needle. */
bool warned(const doc *d, const char *needle);
/* The format named `name`, or NULL. */
const artefact_parser *format_named(const char *name);
/* A JSON number's value (fails the test when v is not a number). */
double num(json_t *v);
bool close_to(double a, double b);
#define CLOSE(a, b) ck_assert_msg(close_to((double)(a), (double)(b)), "%.12g != %.12g", (double)(a), (double)(b))

/* The suites' test cases (check_npu.c: formats and msprof; check_npu_aie.c: AIE). */
TCase *npu_aie_tcase(void);

#endif
