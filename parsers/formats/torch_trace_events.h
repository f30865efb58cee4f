/* torch_trace_events: the torch profile format's REC_TRACE_EVENT state (internal to the
 * format: torch_trace_json.c hands it out through open_records when the sink names
 * REC_TRACE_EVENT alone, and tells it from the other states by its first word;
 * torch_trace_both.c drives it from the typed state's tokenizer for a sink naming both). */
#ifndef GOBLIN_TORCH_TRACE_EVENTS_H
#define GOBLIN_TORCH_TRACE_EVENTS_H

#include "parsers/artefact.h"
#include "parsers/tokenizers/json_tokenizer.h"

#define TORCH_EVENTS_MAGIC 0x7e7e0e01u

/* A state emitting REC_TRACE_EVENT records to sink; NULL on allocation failure. */
void *torch_events_open(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                        diag_list *diag);
/* The second piece of a split read at `offset` (a resume point): before an event of the root
 * object's "traceEvents" list. */
void *torch_events_open_resumed(const parse_options *opt, const char *label, const record_sink *sink,
                                read_facts *facts, diag_list *diag, uint64_t offset, const uint8_t *head,
                                size_t head_n);
/* first read exactly the bytes before second's offset: true when it stands where second
 * began (second then counts for the whole file); false, nothing changed, otherwise. */
bool torch_events_join(void *first, void *second);
/* torch_events_join without the tokenizer's position check: for a state whose tokens come
 * from another state's tokenizer (torch_trace_both.c), whose own join checks the position. */
bool torch_events_join_state(void *first, void *second);
/* The state's own tokenizer (torch_trace_both.c takes over its callback for a shared read). */
jt_tokenizer *torch_events_tokenizer(void *state);
/* Whether its sink refused a record (it emits nothing more). */
bool torch_events_stopped(const void *state);
/* false: stop feeding (invalid JSON, or the sink refused a record). */
bool torch_events_feed(void *state, const uint8_t *buf, size_t n);
/* End of input: the TE_END record. */
void torch_events_finish(void *state);
/* The same, with the document's validity taken from json (the tokenizer that fed it). */
void torch_events_finish_with(void *state, jt_tokenizer *json);
/* Frees the state (tokenizer, text buffers). */
void torch_events_close(void *state);

#endif
