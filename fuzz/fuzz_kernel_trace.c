/* libFuzzer harness: kernel_trace (see fuzz_common.h and docs/RELIABILITY.md). */
#include "fuzz/fuzz_common.h"
#include "parsers/kernel_trace_csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_one(&kernel_trace_csv_parser, data, size, false);
    return 0;
}
