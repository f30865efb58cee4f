/* main: goblind's command line. `goblind parse` runs one run directory through the
 * parsers and prints RunMetrics; `goblind analyze` prints the analysis document; `goblind serve`
 * is the daemon; runs, show, kernels, forget, analysis and report talk to a daemon. The commands
 * and their usage texts are one table in help.c. For the one-shot commands that read a run
 * (parse, analyze) main first sets the process's malloc settings (base/mem_tune.h); the daemon
 * keeps glibc's defaults, which give freed memory back between runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem_tune.h"
#include "daemon/commands.h"

/* argv with every "--name=value" split into "--name" "value", as getopt_long reads it, so each
 * command's parser sees one spelling (argv[0] kept). The strings are argv's own (the '=' becomes
 * the end of the name); the array is the caller's to free. NULL when out of memory. */
static char **split_long_options(int argc, char **argv, int *out_argc) {
    char **out = malloc(((size_t)argc * 2 + 1) * sizeof *out);
    if (!out) return NULL;
    int n = 0;
    bool options_end = false;
    for (int i = 0; i < argc; i++) {
        char *a = argv[i];
        char *eq = i > 0 && !options_end && !strncmp(a, "--", 2) ? strchr(a, '=') : NULL;
        if (i > 0 && !strcmp(a, "--")) options_end = true;
        if (eq && eq > a + 2 && strspn(a + 2, "abcdefghijklmnopqrstuvwxyz0123456789-") == (size_t)(eq - a - 2)) {
            *eq = '\0';
            out[n++] = a;
            out[n++] = eq + 1;
        } else {
            out[n++] = a;
        }
    }
    out[n] = NULL;
    *out_argc = n;
    return out;
}

int main(int argc, char **argv) {
    if (argc < 2) { help_usage(stderr); return EXIT_USAGE; }
    const char *cmd = argv[1];
    /* large heap steps on huge pages, never trimmed: fewer page faults for a process that
     * reads one run and exits (base/mem_tune.h); not for `serve`, a long-running daemon whose
     * heap would stay at its largest run's peak */
    if (!strcmp(cmd, "parse") || !strcmp(cmd, "analyze")) mem_tune_process();
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) { printf("goblind %s\n", GOBLIND_VERSION); return 0; }
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        if (argc > 2 && !strcmp(argv[2], "--list")) { help_command_list(stdout); return 0; }   /* completion, man page */
        if (argc > 2 && help_usage_command(argv[2], stdout)) return 0;     /* goblind help CMD */
        if (argc > 2) { fprintf(stderr, "goblind: unknown command '%s'\n", argv[2]); help_usage(stderr); return EXIT_USAGE; }
        help_usage(stdout);
        return 0;
    }
    const command_help *c = help_command_find(cmd);
    if (!c) {
        fprintf(stderr, "goblind: unknown command '%s'\n", cmd);
        help_usage(stderr);
        return EXIT_USAGE;
    }
    /* COMMAND --help: that command's usage on stdout, exit 0 (before any other argument check) */
    if (help_wanted(argc - 1, argv + 1)) return help_usage_command(cmd, stdout) ? 0 : EXIT_USAGE;
    int n;
    char **args = split_long_options(argc - 1, argv + 1, &n);
    if (!args) { fprintf(stderr, "goblind: out of memory\n"); return 1; }
    int rc = c->run(n, args);
    free(args);
    return rc;
}
