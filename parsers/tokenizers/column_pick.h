/* column_pick: which header column holds a quantity, decided the way the reference does.
 *
 * Tools rename columns between versions (Kernel_Name/KernelName, used_vram/VRAM_USED_MB),
 * so columns are chosen from a list of candidates: exact name first, then
 * case-insensitive, then "every token of the candidate is a substring of the column".
 * Columns whose lower-cased name contains an excluded word are never chosen. */
#ifndef GOBLIN_COLUMN_PICK_H
#define GOBLIN_COLUMN_PICK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/text_utf8.h"

#define COLUMN_PICK_OUT_OF_MEMORY (-2)   /* no answer: memory ran out (not "no such column") */

/* names: header fields as valid UTF-8. Returns the index whose value csv.DictReader
 * would give for the chosen name (the last column with that exact name), -1 when no column
 * fits, or COLUMN_PICK_OUT_OF_MEMORY. */
ssize_t column_pick(const strbuf *names, size_t n, const char *const *candidates,
                    const char *const *exclude);

/* The reference's pick_timing_column() (default mode, kernel-trace columns): exact, then
 * case-insensitive, then "every name token of the candidate is a whole name token of the
 * column" (name_tokens), so SQ_INSTS_SENDMSG is not an end_ns column but Start_Timestamp
 * still matches Start. No exclusions. Same return value as column_pick(). */
ssize_t column_pick_timing(const strbuf *names, size_t n, const char *const *candidates);

/* The reference's name_tokens(): the ASCII tokens of a column name, split at anything not
 * [A-Za-z0-9] and at camelCase (re [A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+), lower-cased.
 * Writes up to max tokens as (start, length) pairs into tok; returns how many there are. */
size_t column_name_tokens(const char *s, size_t n, size_t (*tok)[2], size_t max);
/* True when one of the name tokens of s[0..n) is exactly the lower-case ASCII word. */
bool column_has_name_token(const char *s, size_t n, const char *word);

#endif
