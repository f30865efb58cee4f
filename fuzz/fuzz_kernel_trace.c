/* libFuzzer harness: kernel_trace (see fuzz_common.h and docs/RELIABILITY.md). */
#include "fuzz/fuzz_common.h"
#include "parsers/formats/kernel_trace_csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_one(&kernel_trace_csv_parser, data, size, false);
    if (size > 1)                 /* a read in two pieces from anywhere in the input, as the reader joins them */
        fuzz_split_equal_kernels(&kernel_trace_csv_parser, data + 1, size - 1, (size_t)data[0] * (size - 1) / 256);
    return 0;
}
