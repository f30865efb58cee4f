/* libFuzzer harness: torch_gzip (see fuzz_common.h and docs/RELIABILITY.md). */
#include "fuzz/fuzz_common.h"
#include "parsers/formats/torch_trace_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_one(&torch_trace_json_parser, data, size, true);
    return 0;
}
