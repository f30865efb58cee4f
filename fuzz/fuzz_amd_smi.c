/* libFuzzer harness: amd_smi (see fuzz_common.h and docs/RELIABILITY.md). */
#include "fuzz/fuzz_common.h"
#include "parsers/formats/amd_smi_csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_one(&amd_smi_csv_parser, data, size, false);
    return 0;
}
