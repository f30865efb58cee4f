/* commands: the goblind subcommands dispatched by main.c. Each returns the exit status. */
#ifndef GOBLIN_COMMANDS_H
#define GOBLIN_COMMANDS_H

#include <stdbool.h>
#include <stdio.h>

#define EXIT_USAGE 2
#define EXIT_NO_ARTEFACTS 3   /* goblind parse: the directory holds none of the three artefacts */

int cmd_parse(int argc, char **argv);
int cmd_analyze(int argc, char **argv);  /* cmd_analyze.c: the analysis document of one run */
int cmd_serve(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_forget(int argc, char **argv);
/* The stored analysis document / Markdown report of a run, from a daemon (cmd_client.c). */
int cmd_analysis(int argc, char **argv);
int cmd_report(int argc, char **argv);

/* help.c: the whole usage; one command's usage (false for an unknown command); whether
 * argv[1..] asks for help (--help or -h). */
void usage(FILE *out);
bool usage_command(const char *cmd, FILE *out);
bool wants_help(int argc, char **argv);

#endif
