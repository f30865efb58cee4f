/* libFuzzer harness: nvidia_smi (see fuzz_common.h and docs/RELIABILITY.md). */
#include "fuzz/fuzz_common.h"

extern const artefact_parser nvidia_smi_csv_parser;   /* parsers/formats/nvidia_smi_csv.c (no header: one file per format) */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_one(&nvidia_smi_csv_parser, data, size, false);
    return 0;
}
