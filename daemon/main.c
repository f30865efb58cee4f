/* main: goblind's command line. `goblind parse` runs one run directory through the
 * parsers and prints RunMetrics; `goblind analyze` prints the analysis document; `goblind serve`
 * is the daemon; runs, show, forget, analysis and report talk to a daemon. Usage texts are in
 * help.c. For the one-shot commands that read a run (parse, analyze) main first sets the
 * process's malloc settings (base/mem_tune.h); the daemon keeps glibc's defaults, which give
 * freed memory back between runs. */
#include <stdio.h>
#include <string.h>

#include "base/mem_tune.h"
#include "daemon/commands.h"

int main(int argc, char **argv) {
    if (argc < 2) { usage(stderr); return EXIT_USAGE; }
    const char *cmd = argv[1];
    /* large heap steps on huge pages, never trimmed: fewer page faults for a process that
     * reads one run and exits (base/mem_tune.h); not for `serve`, a long-running daemon whose
     * heap would stay at its largest run's peak */
    if (!strcmp(cmd, "parse") || !strcmp(cmd, "analyze")) mem_tune_process();
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) { printf("goblind %s\n", GOBLIND_VERSION); return 0; }
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        if (argc > 2 && usage_command(argv[2], stdout)) return 0;     /* goblind help CMD */
        usage(stdout);
        return 0;
    }
    /* COMMAND --help: that command's usage on stdout, exit 0 (before any other argument check) */
    if (wants_help(argc - 1, argv + 1) && usage_command(cmd, stdout)) return 0;
    if (!strcmp(cmd, "parse")) return cmd_parse(argc - 1, argv + 1);
    if (!strcmp(cmd, "analyze")) return cmd_analyze(argc - 1, argv + 1);
    if (!strcmp(cmd, "serve")) return cmd_serve(argc - 1, argv + 1);
    if (!strcmp(cmd, "runs")) return cmd_runs(argc - 1, argv + 1);
    if (!strcmp(cmd, "show")) return cmd_show(argc - 1, argv + 1);
    if (!strcmp(cmd, "forget")) return cmd_forget(argc - 1, argv + 1);
    if (!strcmp(cmd, "analysis")) return cmd_analysis(argc - 1, argv + 1);
    if (!strcmp(cmd, "report")) return cmd_report(argc - 1, argv + 1);
    fprintf(stderr, "goblind: unknown command '%s'\n", cmd);
    usage(stderr);
    return EXIT_USAGE;
}
