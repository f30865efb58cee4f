/* test_api: the HTTP API started for a test (see test_api.h). */
#include "tests/test_api.h"

#include <check.h>

api *tu_api_start(store *st, goblind_counters *counters, int connection_timeout_s) {
    counters_init(counters);
    api_options opt = {.listen = "127.0.0.1:0", .max_connections = 16, .connection_timeout_s = connection_timeout_s,
                       .max_request_kb = 16, .counters = counters, .metrics_max_runs = 10, .version = "test"};
    char *err = NULL;
    api *a = api_start(&opt, st, &err);
    ck_assert_msg(a != NULL, "%s", err ? err : "");
    api_set_ready(a, true);
    return a;
}
