/* section_registry: every section of the analysis document, in document order.
 *
 * Derived analyses come after the analyses whose results they read (section_result).
 * Adding an analysis is its file, one line in SECTIONS in section_registry.c, one in
 * goblin_analyses (CMakeLists.txt) and its tests: docs/ARCHITECTURE.md "A new section". */
#ifndef GOBLIN_SECTION_REGISTRY_H
#define GOBLIN_SECTION_REGISTRY_H

#include "analyses/section.h"

/* The registered analyses, NULL-terminated, in document (and finish) order. */
const section_analysis *const *section_analyses(void);
/* The analysis whose section is `key`, or NULL. */
const section_analysis *section_analysis_named(const char *key);

#endif
