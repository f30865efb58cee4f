/* help: goblind's command table — each command's function, one-line summary, synopsis and help
 * text — and the exit-status table every command follows. `goblind --help`, `goblind CMD --help`,
 * the man page (scripts/gen-man.sh, from `goblind help --list` and these texts) and the bash
 * completion (contrib/goblind.bash-completion reads the same texts) all come from it; a new
 * command is one more row. */
#include <stdio.h>
#include <string.h>

#include "daemon/commands.h"

static const command_help HELP[] = {
    {"parse", cmd_parse, "Print the RunMetrics JSON of one run directory.", "RUN_DIR holds no profile file at all (nothing is printed on stdout)",
     "goblind parse RUN_DIR [--precision fp16|bf16|fp32|fp8] [--steps N] [--compat seed] [--indent N] [--format json|table] [--explain] [--analysis FILE]",
     "Print the RunMetrics JSON of one run directory: goblin_runner's files (trace.csv,\n"
     "torch_profile.json[.gz], amd_smi.csv) by its rules; any other profile (a Kineto trace under\n"
     "its own name, rocprofv3 including its *kernel_trace.csv, rocpd, ...) as the daemon reads it, each\n"
     "number from the best source it has (--explain then says which, and the run's profile).\n"
     "  --precision P     the training precision for MFU (default: from the torch profile)\n"
     "  --steps N         the number of steps (default: from the torch profile)\n"
     "  --compat seed     the original heuristics\n"
     "  --indent N        JSON indentation, 0..16 (default 2; 0 is one line)\n"
     "  --format F        json (default) or table\n"
     "  --explain         how each file was read instead: its format, the column chosen for each\n"
     "                    quantity, rows used and skipped by reason, where steps and the step time came from\n"
     "  --analysis FILE   also write the analysis document (as `goblind analyze`) to FILE, from the same\n"
     "                    read of each file, as the daemon's ingest does\n"},
    {"analyze", cmd_analyze, "Print the analysis document of one run directory.", "no format reads any file of RUN_DIR (the document is still printed)",
     "goblind analyze RUN_DIR [--format json|table|markdown] [--npu-reference-dir DIR] [--threads 1|2] [--kernel-wait-threshold-ns N] [--short-kernel-ns N] [--rows N]",
     "Print the analysis document of one run directory: every file some format reads (several torch\n"
     "traces, files one or two directories down: a rocprofv3 output tree, msprof's PROF_* folders)\n"
     "and every analysis section (docs/ANALYSIS.md); the \"sources\" section says which file was\n"
     "read by which format, its record counts, skipped rows, parse time, warnings and whether its\n"
     "kernels were chosen.\n"
     "  --format F               json (default: GET /runs/<id>/analysis), table (one block per\n"
     "                           section) or markdown (report.md)\n"
     "  --npu-reference-dir DIR  msprof reference durations (default: RUN_DIR/reference)\n"
     "  --threads N              sources read at a time, 1 or 2 (default 2)\n"
     "  --kernel-wait-threshold-ns N  an idle GPU gap shorter than this is kernel_wait (default 50000)\n"
     "  --short-kernel-ns N      a kernel shorter than this is short (default 10000)\n"
     "  --rows N                 list the N busiest names in kernels.by_name and api.by_function, the\n"
     "                           rest summed in `unlisted` (default 200; 0: every row)\n"},
    {"export", cmd_export, "Write a run directory's per-kernel rows or its msprof reference tables.", NULL,
     "goblind export RUN_DIR [--kernels FILE|-] [--format csv|jsonl] [--host-trace] [--npu-reference DIR]",
     "Write the per-kernel export of one run directory, read from its files as it is written (memory\n"
     "stays bounded: docs/PERFORMANCE.md): one row per kernel dispatch the kernels section counts, with\n"
     "start_ns, end_ns, device, stream, rank, name, class, phase (prefill, decode, mixed, idle or none),\n"
     "layer, cpu_op, python_frame, duration_ns and owner (docs/ANALYSIS.md \"Per-kernel export\").\n"
     "  --kernels FILE    the rows, to FILE or - (stdout); an export must be asked for\n"
     "  --format F        csv (default; a header line first) or jsonl (one JSON object a line); by\n"
     "                    default jsonl when FILE ends in .jsonl\n"
     "  --host-trace      the host trace's kernels (torch.profiler), those the ops, phases and layers\n"
     "                    sections label, rather than the kernels section's (a device-clock trace's when\n"
     "                    the run has one, whose kernels carry no host labels)\n"
     "  --npu-reference DIR  the run's Ascend operators (npu_ops) as msprof reference CSVs, one per\n"
     "                    operator type, into DIR (docs/ANALYSIS.md \"Reference export\")\n"},
    {"serve", cmd_serve, "Watch run roots, store RunMetrics in SQLite, serve them over HTTP.", NULL,
     "goblind serve [--config FILE] [--root DIR]... [--db FILE] [--listen HOST:PORT] [OPTIONS]",
     "Watch the run roots, store RunMetrics in SQLite and serve them over HTTP (docs/API.md).\n"
     "  --config FILE             INI file (config/goblind.conf documents every key); flags override it\n"
     "  --root DIR                a directory of run directories (repeatable; default ./runs)\n"
     "  --db FILE                 the SQLite database (default ./goblind.db)\n"
     "  --listen HOST:PORT        default 127.0.0.1:9477 (port 0: any free port)\n"
     "  --settle-ms N --quiet-s N --scan-interval-s N --fallback-scan-ms N --watch-mode events|scan\n"
     "  --settle-max-ms N --quiet-ms N --max-parse-mb N --max-parse-s N\n"
     "  --max-connections N --max-event-streams N --connection-timeout-s N --max-request-kb N\n"
     "  --metrics-max-runs N --metrics-labels NAME=VALUE,...\n"
     "  --retention-max-runs N --retention-max-age-days N --db-max-size-mb N\n"
     "  --auth-token-file F --tls-cert-file F --tls-key-file F --tls-client-ca-file F\n"
     "  --webhook-url URL (repeatable: POST each run event there)\n"
     "  --kernel-wait-threshold-ns N --short-kernel-ns N --analysis-list-rows N --npu-reference-dir DIR\n"
     "                           (the analysis document)\n"
     "  --log-level error|warn|info|debug --log-file F (reopened on SIGHUP)\n"
     "SIGHUP re-reads the configuration (docs/OPERATIONS.md says which keys change live).\n"},
    {"runs", cmd_runs, "List the runs a daemon knows, newest first.", NULL,
     "goblind runs [--status S] [--profile F] [--limit N] [--cursor C] [--format table|json] [CONNECTION]",
     "List the runs a daemon knows, newest first, with each run's profile (its source families).\n"
     "  --status S        pending, running, complete, failed, empty or gone\n"
     "  --profile F       only runs holding source family F: goblin, kineto, rocprofv3, rocpd, rocprof,\n"
     "                    nsys, nvprof, smi, msprof or aie\n"
     "  --limit N         1..1000 (default 100)\n"
     "  --cursor C        the next page (printed after a full page)\n"
     "  --format F        table (default) or json (the GET /runs body)\n"},
    {"show", cmd_show, "Show one run: headline numbers, waste budget, top kernels, warnings.", "the run failed (its metrics are shown)",
     "goblind show RUN_ID [--wait] [--format table|json] [CONNECTION]",
     "One run: headline numbers, the waste budget as bars, top kernels, warnings, its profile and\n"
     "where each headline number came from (source and rule).\n"
     "  --wait            wait until the run is final (long polls of 60 s); a run not discovered\n"
     "                    yet is waited for up to 60 s before 'does not know the run'\n"
     "  --format F        table (default) or json: {\"run\": GET /runs/ID, \"metrics\": RunMetrics or null}\n"},
    {"kernels", cmd_kernels, "List a run's per-kernel statistics (GET /runs/ID/kernels).", NULL,
     "goblind kernels RUN_ID [--sort total_ns|calls|avg_ns|max_ns|name] [--limit N] [--format table|json] [CONNECTION]",
     "Per-kernel statistics of the run's last parse, as the daemon stores them: calls, total and mean\n"
     "time, share of the run's kernel time, kernel class and name.\n"
     "  --sort K          total_ns (default), calls, avg_ns, max_ns or name\n"
     "  --limit N         1..100000 (default 100)\n"
     "  --format F        table (default) or json (the GET /runs/ID/kernels body)\n"},
    {"compare", cmd_compare, "Compare two runs: what moved, by how much, and whether it is more than noise (GET /compare).", NULL,
     "goblind compare BASE_ID CANDIDATE_ID [--rows N] [--format table|json|markdown] [CONNECTION]",
     "Compare two complete runs (GET /compare): the summary, the step-time verdict with its 95 % interval\n"
     "(faster, slower, within_noise or unknown), and the kernels and CPU operators that moved most, with\n"
     "their calls, averages, change of total and the verdict of each (docs/ANALYSIS.md, \"Comparing two runs\").\n"
     "  --rows N          kernels and operators listed, 1..1000 (default 20)\n"
     "  --format F        table (default), markdown, or json (the GET /compare body)\n"},
    {"series", cmd_series, "List series of runs, or one series' runs with their regression verdicts (GET /series).",
     "a listed series' latest judged run is a regression (the table is printed)",
     "goblind series [KEY] [--limit N] [--format table|json] [CONNECTION]",
     "Without KEY, every series of runs (runs sharing the sidecar's labels.series, or a fingerprint of\n"
     "their setup) with its newest run and that run's verdict against its baseline; with KEY, the\n"
     "series' runs in order with step time, tokens/s, busy %, and the verdicts against the previous\n"
     "run and against the baseline (the pooled steps of the last series_baseline_runs complete runs),\n"
     "each with its 95 % interval (docs/ANALYSIS.md, \"Series and regressions\"). A value the daemon\n"
     "does not know prints -; the judged run is the newest complete run with per-step times.\n"
     "  --limit N         series listed, or the series' newest runs shown, 1..1000 (default 50)\n"
     "  --format F        table (default) or json (the GET /series or /series/KEY body)\n"},
    {"forget", cmd_forget, "Delete a run from a daemon's database (its directory is left alone).", NULL,
     "goblind forget RUN_ID [CONNECTION]",
     "Delete a run from the daemon's database (DELETE /runs/ID). Its directory is left alone and is\n"
     "not ingested again unless its files change.\n"},
    {"analysis", cmd_analysis, "Print a run's stored analysis document (GET /runs/ID/analysis).", "the run failed (its document is printed)",
     "goblind analysis RUN_ID [--wait] [CONNECTION]",
     "Print a run's stored analysis document (GET /runs/ID/analysis, JSON) as the daemon stores it.\n"
     "  --wait            wait until the run is complete or failed (long polls of 60 s)\n"},
    {"report", cmd_report, "Print a run's stored Markdown report (GET /runs/ID/report.md).", "the run failed (its report is printed)",
     "goblind report RUN_ID [--wait] [CONNECTION]",
     "Print a run's stored Markdown report (GET /runs/ID/report.md).\n"
     "  --wait            wait until the run is complete or failed (long polls of 60 s)\n"},
};

static const char CONNECTION[] =
    "CONNECTION (runs, show, kernels, compare, series, forget, analysis, report):\n"
    "  --url URL         HOST:PORT, http://HOST:PORT or https://HOST:PORT (default $GOBLIND_URL, else\n"
    "                    127.0.0.1:9477)\n"
    "  --cacert FILE     the CA certificate (PEM) that signed the daemon's TLS certificate\n"
    "  --cert FILE --key FILE   a client certificate and its key (PEM)\n"
    "  --token-file FILE the bearer token (default: $GOBLIND_TOKEN, else the file $GOBLIND_TOKEN_FILE)\n";

/* The exit statuses every command follows (3's meaning per command: its exit3). */
static const char EXIT_TABLE[] =
    "Exit status:\n"
    "  0  success\n"
    "  1  a runtime error: a file or directory cannot be read, the database or address cannot be\n"
    "     opened, the daemon cannot be reached, refuses the request (401, 403, 5xx) or does not know\n"
    "     the run (404)\n"
    "  2  a usage error: an unknown command or option, a bad value or configuration (also when the\n"
    "     daemon answers 400)\n"
    "  3  nothing to measure: parse and analyze read no file; show, analysis and report: the run\n"
    "     failed (what is known is printed); series: a listed series' latest judged run is a\n"
    "     regression (the table is printed)\n";

const command_help *help_command_find(const char *name) {
    for (size_t i = 0; i < sizeof HELP / sizeof HELP[0]; i++)
        if (!strcmp(HELP[i].name, name)) return &HELP[i];
    return NULL;
}

void help_command_list(FILE *out) {
    for (size_t i = 0; i < sizeof HELP / sizeof HELP[0]; i++) fprintf(out, "%s\n", HELP[i].name);
}

bool help_usage_command(const char *cmd, FILE *out) {
    const command_help *c = help_command_find(cmd);
    if (!c) return false;
    fprintf(out, "usage: %s\n\n%s\n", c->synopsis, c->text);
    if (strstr(c->synopsis, "CONNECTION")) fprintf(out, "%s\n", CONNECTION);
    fprintf(out, "Exit status: 0 success, 1 runtime or daemon error, 2 usage error%s%s (goblind --help).\n",
            c->exit3 ? ", 3 when " : "", c->exit3 ? c->exit3 : "");
    return true;
}

bool help_wanted(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return true;
    return false;
}

void help_usage(FILE *out) {
    fprintf(out, "usage:");
    for (size_t i = 0; i < sizeof HELP / sizeof HELP[0]; i++) fprintf(out, "%s%s\n", i ? "       " : " ", HELP[i].synopsis);
    fprintf(out, "       goblind help [COMMAND | --list] | --version | --help | COMMAND --help\n\n");
    for (size_t i = 0; i < sizeof HELP / sizeof HELP[0]; i++) fprintf(out, "  %-9s %s\n", HELP[i].name, HELP[i].summary);
    fprintf(out, "\nOptions take their value as the next argument or after '=' (--format=json).\n\n%s\n%s",
            CONNECTION, EXIT_TABLE);
}
