/* commands: the goblind subcommands dispatched by main.c. Each returns the exit status. */
#ifndef GOBLIN_COMMANDS_H
#define GOBLIN_COMMANDS_H

#include <stdio.h>

#define EXIT_USAGE 2
#define EXIT_NO_ARTEFACTS 3   /* goblind parse: the directory holds none of the three artefacts */

int cmd_parse(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_show(int argc, char **argv);
void usage(FILE *out);

#endif
