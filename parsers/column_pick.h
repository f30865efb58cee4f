/* column_pick: which header column holds a quantity, decided the way the reference does.
 *
 * Tools rename columns between versions (Kernel_Name/KernelName, used_vram/VRAM_USED_MB),
 * so columns are chosen from a list of candidates: exact name first, then
 * case-insensitive, then "every token of the candidate is a substring of the column".
 * Columns whose lower-cased name contains an excluded word are never chosen. */
#ifndef GOBLIN_COLUMN_PICK_H
#define GOBLIN_COLUMN_PICK_H

#include <stddef.h>
#include <sys/types.h>

#include "parsers/text_utf8.h"

/* names: header fields as valid UTF-8. Returns the index whose value csv.DictReader
 * would give for the chosen name (the last column with that exact name), or -1. */
ssize_t column_pick(const strbuf *names, size_t n, const char *const *candidates,
                    const char *const *exclude);

#endif
