/* parser_registry: every artefact format goblind understands, and which one reads a file.
 *
 * To add a format: write parsers/<format>.c exporting one artefact_parser, then add it
 * to the table in parser_registry.c. Nothing else changes. */
#ifndef GOBLIN_PARSER_REGISTRY_H
#define GOBLIN_PARSER_REGISTRY_H

#include "parsers/artefact.h"

/* The first registered parser of `kind` whose sniff() accepts the file, or NULL. */
const artefact_parser *parser_for(artefact_kind kind, const char *name, const uint8_t *head, size_t n);

#endif
