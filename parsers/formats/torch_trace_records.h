/* torch_trace_records: the torch profile format's record-emitting state (see the .c).
 *
 * torch_trace_json_parser's open_records hands out this state for the analysis document
 * (torch_trace_events.c's to a sink naming REC_TRACE_EVENT alone, RunMetrics'; and
 * torch_trace_both.c's, both on this state's tokenizer, to a sink naming both); its
 * feed/finish/close tell the two apart by the state's first word (TORCH_RECORDS_MAGIC). */
#ifndef GOBLIN_TORCH_TRACE_RECORDS_H
#define GOBLIN_TORCH_TRACE_RECORDS_H

#include "parsers/artefact.h"
#include "parsers/tokenizers/json_tokenizer.h"

#define TORCH_RECORDS_MAGIC 0x7452ec0du

/* A record-emitting state (records to sink, how the file was read to facts); NULL on OOM. */
void *torch_records_open(const parse_options *opt, const char *label, const record_sink *sink, read_facts *facts,
                         diag_list *diag);
/* The second piece of a split read, at `offset` (a resume point of torch_trace_json's):
 * before an event of the root object's "traceEvents" list. */
void *torch_records_open_resumed(const parse_options *opt, const char *label, const record_sink *sink,
                                 read_facts *facts, diag_list *diag, uint64_t offset, const uint8_t *head,
                                 size_t head_n);
/* first read exactly the bytes before second's offset: true when it stands where second
 * began (second then counts for the whole file and writes first's facts); false: the
 * pieces' records are not one sequential pass, the caller reads the file again. */
bool torch_records_join(void *first, void *second);
/* false: stop feeding (invalid JSON, or the sink refused a record). */
bool torch_records_feed(void *state, const uint8_t *buf, size_t n);
/* End of input: warnings and the read facts. */
void torch_records_finish(void *state);
/* Frees the state (buffers, lane tables). */
void torch_records_close(void *state);
/* Decimal microseconds text -> integer ns in fixed point (rounded half away from zero past
 * the ns digit), never through a double; false when the text is not a number. */
bool torch_us_text_ns(const char *s, size_t n, i128 *out);

/* The state's tokenizer (torch_trace_both.c shares it with a REC_TRACE_EVENT state). A bare
 * array document makes the state start it again with its own callback (see the .c). */
jt_tokenizer *torch_records_tokenizer(void *state);
/* Whether its sink refused a record (it reads nothing more). */
bool torch_records_stopped(const void *state);

#endif
