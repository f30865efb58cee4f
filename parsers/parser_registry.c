/* parser_registry: the table of formats. */
#include "parsers/parser_registry.h"

#include <stdlib.h>

#include "parsers/amd_smi_csv.h"
#include "parsers/kernel_trace_csv.h"
#include "parsers/torch_trace_json.h"

static const artefact_parser *const PARSERS[] = {
    &kernel_trace_csv_parser,
    &torch_trace_json_parser,
    &amd_smi_csv_parser,
    NULL,
};

const artefact_parser *parser_for(artefact_kind kind, const char *name, const uint8_t *head, size_t n) {
    for (size_t i = 0; PARSERS[i]; i++)
        if (PARSERS[i]->kind == kind && PARSERS[i]->sniff(name, head, n)) return PARSERS[i];
    /* Fall back to any parser of the kind: a misnamed file still gets a clear error. */
    for (size_t i = 0; PARSERS[i]; i++)
        if (PARSERS[i]->kind == kind) return PARSERS[i];
    return NULL;
}

void kernel_summary_free(kernel_summary *s) { kernel_table_free(&s->kernels); read_facts_free(&s->facts); }
void torch_summary_free(torch_summary *s) {
    free(s->pytorch_version);
    s->pytorch_version = NULL;
    kernel_table_free(&s->kernels);
    read_facts_free(&s->facts);
}
void telemetry_summary_free(telemetry_summary *s) {
    free(s->rocm_version);
    s->rocm_version = NULL;
    read_facts_free(&s->facts);
}
