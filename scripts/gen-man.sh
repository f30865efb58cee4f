#!/bin/sh
# Writes goblind.1 (roff) from the binary's own command table (daemon/help.c): the commands of
# `goblind help --list`, each one's `goblind COMMAND --help`, the summaries and the exit-status
# table of `goblind --help` — so the man page never drifts from --help (nor from the bash
# completion, which reads the same texts). Run by the build (CMake); usage: gen-man.sh GOBLIND OUT
set -eu
GOBLIND=$1 OUT=$2
version=$("$GOBLIND" --version | sed 's/^goblind //')
esc() { sed -e 's/\\/\\e/g' -e 's/^\./\\\&./' -e "s/^'/\\\\\\&'/" -e 's/^-/\\-/'; }
{
  printf '.TH GOBLIND 1 "" "goblind %s" "User Commands"\n' "$version"
  printf '.SH NAME\ngoblind \\- telemetry daemon for GPU training runs (RunMetrics, waste budget, Prometheus)\n'
  printf '.SH SYNOPSIS\n.nf\n'
  "$GOBLIND" --help | sed -n '/^usage:/,/^$/p' | sed 's/^usage: //; s/^ *//' | grep -v '^$' | esc
  printf '.fi\n.SH DESCRIPTION\n'
  printf 'goblind watches run directories of a GPU training node, parses each run as its files land,\n'
  printf 'stores RunMetrics and a waste budget in SQLite and serves them as REST JSON, Server-Sent Events,\n'
  printf 'Prometheus metrics and a dashboard page. See /usr/share/doc/goblind for API.md and OPERATIONS.md.\n'
  printf '.SH COMMANDS\n.nf\n'
  "$GOBLIND" --help | sed -n '/^  [a-z]/p' | sed 's/^  //' | esc
  printf '.fi\n'
  for cmd in $("$GOBLIND" help --list); do
    printf '.SH "goblind %s"\n.nf\n' "$cmd"
    "$GOBLIND" "$cmd" --help | esc
    printf '.fi\n'
  done
  printf '.SH "EXIT STATUS"\n.nf\n'
  "$GOBLIND" --help | sed -n '/^Exit status:/,$p' | sed 1d | esc
  printf '.fi\n'
  printf '.SH ENVIRONMENT\n.TP\n.B GOBLIND_URL\nthe daemon for runs, show, kernels, forget, analysis and report (default 127.0.0.1:9477)\n'
  printf '.TP\n.B GOBLIND_TOKEN\nthe bearer token\n.TP\n.B GOBLIND_TOKEN_FILE\na file holding the bearer token\n'
  printf '.SH FILES\n.TP\n.I /etc/goblind/goblind.conf\nthe configuration (every key documented in it)\n'
  printf '.TP\n.I /var/lib/goblind/goblind.db\nthe database\n'
  printf '.SH SEE ALSO\n.BR systemctl (1),\n.BR journalctl (1),\n.BR promtool (1)\n'
} > "$OUT"
