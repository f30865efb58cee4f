/* run_log: run outcomes to stderr or, under systemd, to journald with structured fields. */
#include "daemon/run_log.h"

#include <stdio.h>
#include <stdlib.h>

#include "daemon/journald.h"
#include "daemon/log.h"

void run_log_outcome(const char *id, run_status status, double parse_ms, const char *reason) {
    if (!log_enabled(LOG_INFO)) return;
    char msg[900], ms[32] = "";
    const char *what = store_run_status_name(status);
    if (parse_ms >= 0) snprintf(ms, sizeof ms, "%.1f", parse_ms);
    switch (status) {
    case RUN_COMPLETE: snprintf(msg, sizeof msg, "run %s: complete (parse %s ms)", id, ms); break;
    case RUN_FAILED:
        snprintf(msg, sizeof msg, "run %s: failed: %s (parse %s ms)", id, reason ? reason : "does not parse", ms);
        break;
    case RUN_EMPTY: snprintf(msg, sizeof msg, "run %s: empty: no recognised profile file (parse %s ms)", id, ms); break;
    case RUN_GONE: snprintf(msg, sizeof msg, "run %s: directory gone; stored metrics kept", id); break;
    default: snprintf(msg, sizeof msg, "run %s: deleted from the database (%s); its directory is left alone", id,
                      reason ? reason : "deleted");
             what = "deleted"; break;
    }
    if (getenv("JOURNAL_STREAM") && journald_run_entry(msg, id, what, ms, reason ? reason : "")) return;
    log_info("%s", msg);
}

void run_log_deleted(const char *id, const char *why) { run_log_outcome(id, RUN_STATUS_COUNT, -1, why); }
