/* libFuzzer harness: every registered byte-stream record format, record invariants checked
 * (see fuzz/fuzz_record_formats.h and docs/RELIABILITY.md). */
#include "fuzz/fuzz_record_formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_record_formats_one(data, size);
    return 0;
}
