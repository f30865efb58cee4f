/* commands: the goblind subcommands dispatched by main.c. Each returns the exit status. */
#ifndef GOBLIN_COMMANDS_H
#define GOBLIN_COMMANDS_H

#include <stdbool.h>
#include <stdio.h>

/* The exit statuses (help.c's table): 0 success, 1 a runtime or daemon error, EXIT_USAGE, and 3. */
#define EXIT_USAGE 2
#define EXIT_NO_ARTEFACTS 3   /* goblind parse: the directory holds none of the three artefacts */

/* The commands (argv[0] is the command's name; the exit status as above; HELP[] in help.c
 * says what each does): RunMetrics of one run directory (cmd_parse.c), its analysis
 * document (cmd_analyze.c), the daemon (cmd_serve.c), and the HTTP clients listing runs,
 * showing one and forgetting one (cmd_client.c). */
int cmd_parse(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_forget(int argc, char **argv);
/* The stored analysis document / Markdown report of a run, from a daemon (cmd_client.c). */
int cmd_analysis(int argc, char **argv);
int cmd_report(int argc, char **argv);

int cmd_kernels(int argc, char **argv);   /* GET /runs/<id>/kernels (cmd_client.c) */
int cmd_compare(int argc, char **argv);   /* GET /compare (cmd_compare.c) */
int cmd_series(int argc, char **argv);    /* GET /series, /series/<key> (cmd_series.c) */
int cmd_export(int argc, char **argv);    /* per-kernel rows of a run directory (cmd_export.c) */

/* One row of the command table (help.c): what main runs and what --help, the man page and the
 * bash completion print. exit3: what exit status 3 means for the command, NULL when unused. */
typedef struct command_help {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary, *exit3, *synopsis, *text;
} command_help;

/* help.c: the command named name (NULL when there is none); every command name, one a line;
 * the whole usage; one command's usage (false for an unknown command); whether argv[1..] asks
 * for help (--help or -h). */
const command_help *help_command_find(const char *name);
void help_command_list(FILE *out);
void help_usage(FILE *out);
bool help_usage_command(const char *cmd, FILE *out);
bool help_wanted(int argc, char **argv);

#endif
