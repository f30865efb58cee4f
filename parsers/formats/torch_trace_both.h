/* torch_trace_both: the torch profile format's state for a sink taking both REC_TRACE_EVENT
 * and typed records (internal to the format: torch_trace_json.c hands it out, and tells it
 * from the other two states by its first word). One tokenizer feeds both record states. */
#ifndef GOBLIN_TORCH_TRACE_BOTH_H
#define GOBLIN_TORCH_TRACE_BOTH_H

#include "parsers/artefact.h"

#define TORCH_BOTH_MAGIC 0x7b07b07bu

/* A state emitting torch_trace_records.c's typed records and torch_trace_events.c's
 * REC_TRACE_EVENT records to sink, from one tokenization; NULL on allocation failure. */
void *torch_both_open(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                      diag_list *diag);
/* The second piece of a split read at `offset` (a resume point of torch_trace_json's). */
void *torch_both_open_resumed(const parse_options *opt, const char *label, const record_sink *sink,
                              read_facts *facts, diag_list *diag, uint64_t offset, const uint8_t *head,
                              size_t head_n);
/* Both states' joins (first read exactly the bytes before second's offset). */
bool torch_both_join(void *first, void *second);
/* false: neither state wants more (invalid JSON, or both sinks refused). */
bool torch_both_feed(void *state, const uint8_t *buf, size_t n);
/* End of input: both states' ends (the typed state's warnings and facts, the TE_END record). */
void torch_both_finish(void *state);
void torch_both_close(void *state);

#endif
