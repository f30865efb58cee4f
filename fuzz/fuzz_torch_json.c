/* libFuzzer harness: torch_json (see fuzz_common.h and docs/RELIABILITY.md). */
#include "fuzz/fuzz_common.h"
#include "parsers/formats/torch_trace_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_one(&torch_trace_json_parser, data, size, false);
    if (size > 1) fuzz_split_equal(&torch_trace_json_parser, data + 1, size - 1, (size_t)data[0] * (size - 1) / 256);   /* anywhere in the input */
    return 0;
}
