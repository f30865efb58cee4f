/* artefact_reader_internal: what core/artefact_reader.c shares with core/artefact_passenger.c
 * (a passenger reading uses the reader's checked open and whole-file read); nothing else
 * includes it. */
#ifndef GOBLIN_ARTEFACT_READER_INTERNAL_H
#define GOBLIN_ARTEFACT_READER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/artefact_reader.h"

/* An artefact file, opened and checked, with the parser that fits it. */
typedef struct artefact_opened {
    int fd;
    const artefact_parser *p;
    const char *label;
    const char *path;            /* as given (for companion-file warnings) */
    bool gz;
} artefact_opened;

/* Every check of artefact_read() (inside the root, regular, a format that fits, size and
 * limits); false after a warning (nothing is open then). */
bool artefact_open_checked(const char *path, artefact_kind kind, const parse_options *opt, diag_list *diag,
                           artefact_info *info, artefact_opened *o);
/* Reads an opened file from start to end through one parser state, then closes it. */
void artefact_read_whole(artefact_opened *o, artefact_kind kind, const parse_options *opt, void *summary,
                         diag_list *diag, artefact_info *info);

#endif
