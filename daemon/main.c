/* main: goblind's command line. `goblind parse` runs one run directory through the
 * parsers and prints RunMetrics; `goblind serve` is the daemon. */
#include <stdio.h>
#include <string.h>

#include "daemon/commands.h"

void usage(FILE *out) {
    fprintf(out,
            "usage: goblind parse RUN_DIR [--precision fp16|bf16|fp32|fp8] [--steps N] [--compat seed]\n"
            "                             [--indent N] [--format json|table] [--explain]\n"
            "       goblind serve [--config FILE] [--root DIR]... [--db FILE] [--listen HOST:PORT]\n"
            "                     [--settle-ms N] [--quiet-s N] [--log-level error|warn|info|debug]\n"
            "       goblind runs [--status S] [--limit N] [--cursor C] [--url HOST:PORT] [--token-file F]\n"
            "       goblind show RUN_ID [--url HOST:PORT] [--token-file F]\n"
            "       goblind --version | --help\n"
            "\n"
            "parse   print the RunMetrics JSON of one goblin_runner run directory\n"
            "        (exit 0 even when artefacts are missing or broken: see \"warnings\";\n"
            "         --explain: how each file was read instead: columns, rows used and skipped,\n"
            "         where steps and the step time came from;\n"
            "         1 when RUN_DIR is not a readable directory; 2 on a usage error)\n"
            "serve   watch the run roots, store RunMetrics in SQLite and serve them over HTTP\n"
            "        (defaults: --root ./runs --db ./goblind.db --listen 127.0.0.1:9477; docs/API.md)\n"
            "runs    the runs the local daemon knows, as a table (GOBLIND_URL or --url, default 127.0.0.1:9477)\n"
            "show    one run: headline numbers, the waste budget as bars, top kernels, warnings,\n"
            "        and how each file was read\n");
}

int main(int argc, char **argv) {
    if (argc < 2) { usage(stderr); return EXIT_USAGE; }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) { printf("goblind %s\n", GOBLIND_VERSION); return 0; }
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) { usage(stdout); return 0; }
    if (!strcmp(cmd, "parse")) return cmd_parse(argc - 1, argv + 1);
    if (!strcmp(cmd, "serve")) return cmd_serve(argc - 1, argv + 1);
    if (!strcmp(cmd, "runs")) return cmd_runs(argc - 1, argv + 1);
    if (!strcmp(cmd, "show")) return cmd_show(argc - 1, argv + 1);
    fprintf(stderr, "goblind: unknown command '%s'\n", cmd);
    usage(stderr);
    return EXIT_USAGE;
}
