/* client_opts: what the client commands (cmd_client.c, cmd_compare.c) share: their options
 * (connection, format, ids), parsed once, and the daemon request that prints a refusal. */
#ifndef GOBLIN_CLIENT_OPTS_H
#define GOBLIN_CLIENT_OPTS_H

#include <jansson.h>
#include <stdbool.h>

typedef struct client_opts {
    const char *url, *status, *limit, *cursor, *token_file, *cacert, *cert, *key, *format, *id, *sort;
    const char *id2, *rows;       /* goblind compare: the candidate run and --rows */
    bool wait, json;
    char *token;
} client_opts;

/* Parses argv[1..] for the command `want` into *o (CONNECTION options, and those `want` takes).
 * 0, or EXIT_USAGE after a message on stderr. The caller frees o->token. */
int client_parse_opts(int argc, char **argv, client_opts *o, const char *want);
/* GET path from the daemon: its JSON when the status is `ok`; else NULL after printing the
 * daemon's error (*http_status: the answer's status, 0 when there was none). */
json_t *client_fetch(const client_opts *o, const char *path, int ok, int *http_status);
/* The exit status of a refusal: a daemon's 400 is a usage error (EXIT_USAGE), anything else 1. */
int client_refusal_status(int http_status);
/* Prints doc as JSON with shortest round-trip numbers (as the daemon does). */
void client_print_json(json_t *doc);

#endif
