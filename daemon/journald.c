/* journald: the native journal protocol through libsystemd. */
#include "daemon/journald.h"

#include <systemd/sd-journal.h>

bool journald_run_entry(const char *msg, const char *run, const char *status, const char *parse_ms, const char *reason) {
    return sd_journal_send("MESSAGE=%s", msg, "PRIORITY=%d", LOG_INFO, "SYSLOG_IDENTIFIER=goblind", "GOBLIND_RUN=%s", run,
                           "GOBLIND_STATUS=%s", status, "GOBLIND_PARSE_MS=%s", parse_ms, "GOBLIND_REASON=%s", reason,
                           NULL) >= 0;
}
