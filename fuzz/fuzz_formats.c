/* fuzz_formats: prints the formats fuzz_record_formats picks among, one "INDEX NAME" line each,
 * in the order byte 0 of an input selects them (fuzz/run.sh seeds every one from this list, so
 * a format added to the registry is seeded without touching the script). */
#include <stdio.h>

#include "fuzz/fuzz_record_formats.h"

int main(void) {
    (void)fuzz_record_formats_one;   /* the harness body is for fuzz_record_formats */
    const artefact_parser *formats[64];
    size_t n = frf_formats(formats, 64);
    for (size_t i = 0; i < n; i++) printf("%zu %s\n", i, formats[i]->name);
    return n ? 0 : 1;
}
