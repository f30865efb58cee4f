/* main: goblind's command line. `goblind parse` runs one run directory through the
 * parsers and prints RunMetrics; `goblind serve` is the daemon. */
#include <stdio.h>
#include <string.h>

#include "daemon/commands.h"

void usage(FILE *out) {
    fprintf(out,
            "usage: goblind parse RUN_DIR [--precision fp16|bf16|fp32|fp8] [--steps N] [--compat seed]\n"
            "                             [--indent N]\n"
            "       goblind --version | --help\n"
            "\n"
            "parse   print the RunMetrics JSON of one goblin_runner run directory\n"
            "        (exit 0 even when artefacts are missing or broken: see \"warnings\";\n"
            "         1 when RUN_DIR is not a readable directory; 2 on a usage error)\n");
}

int main(int argc, char **argv) {
    if (argc < 2) { usage(stderr); return EXIT_USAGE; }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) { printf("goblind %s\n", GOBLIND_VERSION); return 0; }
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) { usage(stdout); return 0; }
    if (!strcmp(cmd, "parse")) return cmd_parse(argc - 1, argv + 1);
    fprintf(stderr, "goblind: unknown command '%s'\n", cmd);
    usage(stderr);
    return EXIT_USAGE;
}
