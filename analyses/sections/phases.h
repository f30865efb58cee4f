/* phases: the phases section's reading of a vLLM step annotation, shared with the per-kernel
 * export (analyses/kernel_rows.c), which labels each kernel with the phase the section counts it in. */
#ifndef GOBLIN_PHASES_H
#define GOBLIN_PHASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether name (len bytes) is a step annotation; then its phase (index for phases_key) and
 * its tokens. */
bool phases_step_name(const char *name, size_t len, int *phase, uint64_t *tokens);
/* "prefill", "decode", "mixed" or "idle" for a phase index, NULL for another. */
const char *phases_key(int phase);

#endif
