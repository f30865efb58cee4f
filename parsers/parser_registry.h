/* parser_registry: every artefact format goblind understands, and which one reads a file.
 *
 * To add a format: write parsers/formats/<format>.c exporting one artefact_parser (its names,
 * its profile family, its sniff, its record-emitting entry points), add it to FORMATS in
 * parser_registry.c and to goblin_parsers in CMakeLists.txt, and add its fixture and tests:
 * docs/ARCHITECTURE.md "A new format".
 * Discovery, the run inventory and the readers go through this table. */
#ifndef GOBLIN_PARSER_REGISTRY_H
#define GOBLIN_PARSER_REGISTRY_H

#include "parsers/artefact.h"

/* The parser of `kind` whose sniff() scores the file highest (the first registered on a
 * tie); when every score is 0, the first of the kind, so a misnamed file still gets a
 * clear error. NULL only when no format of the kind is registered. */
const artefact_parser *parser_for(artefact_kind kind, const char *name, const uint8_t *head, size_t n);
/* The registered parsers in preference order, NULL-terminated (discovery walks their
 * names; tests check every entry is filled in). */
const artefact_parser *const *parser_list(void);

#endif
