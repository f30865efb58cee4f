/* npu_reference_tool: `npu_reference_tool RUN_DIR OUT_DIR` writes RUN_DIR's npu_ops as msprof
 * reference CSVs into OUT_DIR through npu_reference_export_dir (the library function `goblind
 * export --npu-reference` calls), for tests/npu_reference_export.py. Exit status: its own. */
#include <stdio.h>

#include "core/npu_reference_export.h"

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: npu_reference_tool RUN_DIR OUT_DIR\n");
        return 2;
    }
    return npu_reference_export_dir(argv[1], argv[2], stderr);
}
