/* help: the usage text of goblind and of each subcommand. `goblind CMD --help` prints it on
 * stdout and exits 0; the man page (goblind.1) is generated from this text at build time. */
#include <stdio.h>
#include <string.h>

#include "daemon/commands.h"

typedef struct command_help {
    const char *name, *synopsis, *text;
} command_help;

static const command_help HELP[] = {
    {"parse", "goblind parse RUN_DIR [--precision fp16|bf16|fp32|fp8] [--steps N] [--compat seed] [--indent N] [--format json|table] [--explain] [--analysis FILE]",
     "Print the RunMetrics JSON of one goblin_runner run directory.\n"
     "  --precision P     the training precision for MFU (default: from the torch profile)\n"
     "  --steps N         the number of steps (default: from the torch profile)\n"
     "  --compat seed     the original heuristics\n"
     "  --indent N        JSON indentation, 0..16 (default 2; 0 is one line)\n"
     "  --format F        json (default) or table\n"
     "  --explain         how each file was read instead: its format, the column chosen for each\n"
     "                    quantity, rows used and skipped by reason, where steps and the step time came from\n"
     "  --analysis FILE   also write the analysis document (as `goblind analyze`) to FILE, from the same\n"
     "                    read of each file, as the daemon's ingest does\n"
     "Exit status: 0 (also when some artefacts are missing or broken: see \"warnings\"), 1 when RUN_DIR\n"
     "is not a readable directory, 2 on a usage error, 3 when RUN_DIR holds no artefact at all\n"
     "(nothing is printed on stdout)."},
    {"analyze", "goblind analyze RUN_DIR [--format json|table|markdown] [--npu-reference-dir DIR] [--threads 1|2] [--kernel-wait-threshold-ns N] [--short-kernel-ns N] [--rows N] [--chunk-bytes N] [--batch-max-bytes N]",
     "Print the analysis document of one run directory: every file some format reads (several torch\n"
     "traces, a whole rocprofv3 output tree one directory down) and every analysis section\n"
     "(docs/ANALYSIS.md); the \"sources\" section says which file was read by which format, its\n"
     "record counts, skipped rows, parse time, warnings and whether its kernels were chosen.\n"
     "  --format F               json (default: GET /runs/<id>/analysis), table (one block per\n"
     "                           section) or markdown (report.md)\n"
     "  --npu-reference-dir DIR  msprof reference durations (default: RUN_DIR/reference)\n"
     "  --threads N              sources read at a time, 1 or 2 (default 2)\n"
     "  --chunk-bytes N          with 2 threads, parse a large file in chunks of about N bytes on\n"
     "                           worker threads, delivered in file order (default: off; e.g. 131072)\n"
     "  --batch-max-bytes N      bound on the records of parsed chunks waiting (default 67108864; past\n"
     "                           it the file is read sequentially; a test hook)\n"
     "  --kernel-wait-threshold-ns N  an idle GPU gap shorter than this is kernel_wait (default 50000)\n"
     "  --short-kernel-ns N      a kernel shorter than this is short (default 10000)\n"
     "  --rows N                 list the N busiest names in kernels.by_name and api.by_function, the\n"
     "                           rest summed in `unlisted` (default 200; 0: every row)\n"
     "Exit status: 0 (also when some files are broken: see each source's \"warnings\"), 1 when RUN_DIR\n"
     "is not a readable directory, 2 on a usage error, 3 when no format reads any file of RUN_DIR\n"
     "(the document is still printed)."},
    {"serve", "goblind serve [--config FILE] [--root DIR]... [--db FILE] [--listen HOST:PORT] [OPTIONS]",
     "Watch the run roots, store RunMetrics in SQLite and serve them over HTTP (docs/API.md).\n"
     "  --config FILE             INI file (config/goblind.conf documents every key); flags override it\n"
     "  --root DIR                a directory of run directories (repeatable; default ./runs)\n"
     "  --db FILE                 the SQLite database (default ./goblind.db)\n"
     "  --listen HOST:PORT        default 127.0.0.1:9477 (port 0: any free port)\n"
     "  --settle-ms N --quiet-s N --scan-interval-s N --fallback-scan-ms N --watch-mode events|scan\n"
     "  --settle-max-ms N --quiet-ms N --max-parse-mb N --max-parse-s N\n"
     "  --max-connections N --connection-timeout-s N --max-request-kb N\n"
     "  --metrics-max-runs N --metrics-labels NAME=VALUE,...\n"
     "  --retention-max-runs N --retention-max-age-days N --db-max-size-mb N\n"
     "  --auth-token-file F --tls-cert-file F --tls-key-file F --tls-client-ca-file F\n"
     "  --webhook-url URL (repeatable: POST each run event there)\n"
     "  --kernel-wait-threshold-ns N --short-kernel-ns N --analysis-list-rows N --npu-reference-dir DIR\n"
     "                           (the analysis document)\n"
     "  --log-level error|warn|info|debug --log-file F (reopened on SIGHUP)\n"
     "SIGHUP re-reads the configuration (docs/OPERATIONS.md says which keys change live).\n"
     "Exit status: 0 after SIGTERM/SIGINT, 1 when the database or address cannot be opened or another\n"
     "goblind holds it (<db>.lock), 2 on a\n"
     "usage or configuration error."},
    {"runs", "goblind runs [--status S] [--limit N] [--cursor C] [--format table|json] [CONNECTION]",
     "List the runs a daemon knows, newest first.\n"
     "  --status S        pending, running, complete, failed or gone\n"
     "  --limit N         1..1000 (default 100)\n"
     "  --cursor C        the next page (printed after a full page)\n"
     "  --format F        table (default) or json (the GET /runs body)\n"
     "Exit status: 0, 1 when the daemon cannot be reached or refuses, 2 on a usage error."},
    {"show", "goblind show RUN_ID [--wait] [--format table|json] [CONNECTION]",
     "One run: headline numbers, the waste budget as bars, top kernels, warnings.\n"
     "  --wait            wait until the run is complete or failed (long polls of 60 s)\n"
     "  --format F        table (default) or json: {\"run\": GET /runs/ID, \"metrics\": RunMetrics or null}\n"
     "Exit status: 0 (complete, or not final yet without --wait), 1 when the daemon cannot be reached\n"
     "or does not know the run, 2 on a usage error, 3 when the run failed (its metrics are shown)."},
    {"forget", "goblind forget RUN_ID [CONNECTION]",
     "Delete a run from the daemon's database (DELETE /runs/ID). Its directory is left alone and is\n"
     "not ingested again unless its files change.\n"
     "Exit status: 0, 1 when the daemon cannot be reached or does not know the run, 2 on a usage error."},
    {"analysis", "goblind analysis RUN_ID [--wait] [CONNECTION]",
     "Print a run's stored analysis document (GET /runs/ID/analysis, JSON) as the daemon stores it.\n"
     "  --wait            wait until the run is complete or failed (long polls of 60 s)\n"
     "Exit status: 0, 1 when the daemon cannot be reached, does not know the run or has no document\n"
     "for it (yet), 2 on a usage error, 3 when the run failed (its document is printed)."},
    {"report", "goblind report RUN_ID [--wait] [CONNECTION]",
     "Print a run's stored Markdown report (GET /runs/ID/report.md).\n"
     "  --wait            wait until the run is complete or failed (long polls of 60 s)\n"
     "Exit status: 0, 1 when the daemon cannot be reached, does not know the run or has no report\n"
     "for it (yet), 2 on a usage error, 3 when the run failed (its report is printed)."},
};

static const char CONNECTION[] =
    "CONNECTION (runs, show, forget, analysis, report):\n"
    "  --url URL         HOST:PORT, http://HOST:PORT or https://HOST:PORT (default $GOBLIND_URL, else\n"
    "                    127.0.0.1:9477)\n"
    "  --cacert FILE     the CA certificate (PEM) that signed the daemon's TLS certificate\n"
    "  --cert FILE --key FILE   a client certificate and its key (PEM)\n"
    "  --token-file FILE the bearer token (default: $GOBLIND_TOKEN, else the file $GOBLIND_TOKEN_FILE)\n";

bool usage_command(const char *cmd, FILE *out) {
    for (size_t i = 0; i < sizeof HELP / sizeof HELP[0]; i++)
        if (!strcmp(HELP[i].name, cmd)) {
            fprintf(out, "usage: %s\n\n%s\n", HELP[i].synopsis, HELP[i].text);
            if (strstr(HELP[i].synopsis, "CONNECTION")) fprintf(out, "\n%s", CONNECTION);
            return true;
        }
    return false;
}

bool wants_help(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return true;
    return false;
}

void usage(FILE *out) {
    fprintf(out, "usage:");
    for (size_t i = 0; i < sizeof HELP / sizeof HELP[0]; i++) fprintf(out, "%s%s\n", i ? "       " : " ", HELP[i].synopsis);
    fprintf(out, "       goblind --version | --help | COMMAND --help\n\n");
    for (size_t i = 0; i < sizeof HELP / sizeof HELP[0]; i++) {
        const char *nl = strchr(HELP[i].text, '\n');
        fprintf(out, "%-8s %.*s\n", HELP[i].name, (int)(nl ? nl - HELP[i].text : (long)strlen(HELP[i].text)), HELP[i].text);
    }
    fprintf(out, "\n%s", CONNECTION);
}
