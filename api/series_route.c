/* series_route: GET /series and GET /series/<key> (api/series.h; docs/API.md "Series"). */
#include "api/routes.h"

#include <stdio.h>
#include <string.h>

#include "api/series.h"

/* GET /series?limit=N: the series, the one with the newest run first. */
static enum MHD_Result list(api *a, struct MHD_Connection *c) {
    long limit;
    if (!route_int_arg(c, "limit", 1, SERIES_LIMIT_MAX, SERIES_LIMIT_DEFAULT, &limit))
        return api_send_error(c, MHD_HTTP_BAD_REQUEST, "bad_request", "limit must be a whole number from 1 to 1000");
    store_reader *rd = store_reader_acquire(api_store(a));
    json_t *body = series_list_body(rd, (int)limit, api_series_baseline(a), api_series_cache(a));
    bool failed = store_reader_failed(rd);
    store_reader_release(api_store(a), rd);
    if (failed) {
        json_decref(body);
        return route_read_failed(a, c);
    }
    if (!body) return api_send_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal", "the series could not be read");
    return api_send_json(c, MHD_HTTP_OK, body, NULL, 0);
}

/* GET /series/<key>?limit=N: the newest N runs of the series, oldest first, with their verdicts. */
static enum MHD_Result one(api *a, struct MHD_Connection *c, const char *key) {
    long limit;
    if (!route_int_arg(c, "limit", 1, SERIES_LIMIT_MAX, SERIES_LIMIT_DEFAULT, &limit))
        return api_send_error(c, MHD_HTTP_BAD_REQUEST, "bad_request", "limit must be a whole number from 1 to 1000");
    if (!*key || strlen(key) > SERIES_KEY_MAX)
        return api_send_error(c, MHD_HTTP_BAD_REQUEST, "bad_request", "a series key has 1 to 128 bytes");
    store_reader *rd = store_reader_acquire(api_store(a));
    series_eval s;
    int n = series_load(rd, key, (int)limit, api_series_baseline(a), api_series_cache(a), &s);
    bool failed = store_reader_failed(rd);
    store_reader_release(api_store(a), rd);
    enum MHD_Result ret;
    if (failed) {                          /* not "no series": the store could not be read */
        ret = route_read_failed(a, c);
    } else if (n < 0) {
        ret = api_send_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal", "the series could not be read");
    } else if (n == 0) {
        char detail[200];
        snprintf(detail, sizeof detail, "no series with key %.128s", key);
        ret = api_send_error(c, MHD_HTTP_NOT_FOUND, "not_found", detail);
    } else {
        json_t *body = series_body(&s, (int)limit);
        ret = body ? api_send_json(c, MHD_HTTP_OK, body, NULL, 0)
                   : api_send_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal", "out of memory");
    }
    series_eval_free(&s);
    return ret;
}

enum MHD_Result route_series(api *a, struct MHD_Connection *c, const char *url) {
    if (!strcmp(url, "/series") || !strcmp(url, "/series/")) return list(a, c);
    return one(a, c, url + strlen("/series/"));
}
