/* check_alloc_failure_api: the HTTP API's answers when an allocation fails while it serves a
 * request.
 *
 * One goblin_runner run is ingested and stored (twice, as runs a and b, for /compare); the API
 * is started on 127.0.0.1 in this process; every allocation of the process then goes through
 * tests/alloc_fault.c. The test's own client sends each request over a plain socket and reads
 * the answer into a buffer allocated beforehand, so the allocations counted while a request is
 * served are the server's: libmicrohttpd's, the routes', the store's reads and SQLite's. For
 * each route the Nth of them fails (for a sample, that one and every one after it), and the
 * answer must be either the answer without a fault (status and body; for the answers that
 * change from request to request, the body's shape) or a server error: a 5xx status, or the
 * connection closed before a whole answer. Never a 404 for a run that exists, a 200 with part
 * of a body, or a body with a number missing. After each point the API still answers right,
 * and once it is stopped every block it allocated is freed (the executable runs itself again
 * without glibc's thread stack cache for that: see main).
 *
 * Release build only (the sanitizers own malloc in theirs). GOBLIND_ALLOC_POINTS (default
 * 1500) bounds the points tried per route to a tenth of it: the first 100, then spread.
 * DELETE /runs/<id> is walked too, the run stored again before each point, and GET /events:
 * a stream kept open while each point's new run is announced (walk_events).
 * GOBLIND_ALLOC_ROUTE=PATH walks one route ("DELETE /runs/a", "/events"), GOBLIND_ALLOC_TRACE=1
 * prints where a point's first failure is, GOBLIND_ALLOC_DUMP=DIR writes both answers of a
 * differing point. The case "webhooks" fails a webhook event's allocations as it is posted: the
 * event is counted as dropped and logged, never lost without a word. */
#include <arpa/inet.h>
#include <check.h>
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "api/http_api.h"
#include "api/webhooks.h"
#include "core/ingest_doc.h"
#include "core/run_headline.h"
#include "core/run_ingest.h"
#include "storage/retention.h"
#include "storage/store.h"
#include "tests/alloc_fault.h"
#include "tests/sse_client.h"
#include "tests/test_api.h"
#include "tests/test_util.h"

#define ANSWER_MAX (8u << 20)

/* One answer as the client read it. */
typedef struct answer {
    int status;               /* 0: no whole answer (connection closed or cut short) */
    bool hung;                /* no answer within 20 s */
    const char *client_error; /* the client could not send the request (asserted once the fault is off) */
    const char *body;         /* into the client's buffer */
    size_t len;
} answer;

/* Decodes a chunked body in place (buf: len bytes from the first chunk's size line); the decoded
 * length, or -1 when the last chunk never came (the server broke the transfer off). */
static long dechunk(char *buf, size_t len) {
    size_t in = 0, out = 0;
    for (;;) {
        char *end;
        unsigned long n = strtoul(buf + in, &end, 16);
        char *crlf = strstr(end, "\r\n");
        if (end == buf + in || !crlf || (size_t)(crlf - buf) + 2 > len) return -1;
        in = (size_t)(crlf - buf) + 2;
        if (n == 0) return (long)out;
        if (n > len - in || len - in - n < 2) return -1;
        memmove(buf + out, buf + in, n);
        out += n;
        in += n + 2;
    }
}

/* method path over a fresh connection (HTTP/1.1, closed after the answer: a streamed body comes
 * chunked, and one the server broke off has no last chunk), read into buf. It allocates
 * nothing and asserts nothing (Check's asserts allocate, even those that pass). */
static answer http_do(int port, const char *method, const char *path, char *buf) {
    answer a = {0};
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return (answer){.client_error = "socket"};
    struct timeval tv = {.tv_sec = 20};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    char req[512];
    int n = snprintf(req, sizeof req, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", method, path);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || send(fd, req, (size_t)n, MSG_NOSIGNAL) != n) {
        close(fd);
        return (answer){.client_error = "connect or send"};
    }
    size_t got = 0;
    for (ssize_t r; got < ANSWER_MAX - 1 && (r = recv(fd, buf + got, ANSWER_MAX - 1 - got, 0)) != 0;) {
        if (r < 0) {                /* a reset is no answer; a timeout is asserted by the caller */
            bool hung = errno == EAGAIN || errno == EWOULDBLOCK;
            close(fd);
            return (answer){.hung = hung};
        }
        got += (size_t)r;
    }
    close(fd);
    buf[got] = '\0';
    char *head_end = strstr(buf, "\r\n\r\n");
    if (!head_end || sscanf(buf, "HTTP/1.%*d %d", &a.status) != 1) return (answer){0};
    a.body = head_end + 4;
    a.len = got - (size_t)(a.body - buf);
    const char *cl = strcasestr(buf, "\r\nContent-Length:"), *te = strcasestr(buf, "\r\nTransfer-Encoding: chunked");
    if (cl && cl < head_end && strtoull(cl + 17, NULL, 10) != a.len) return (answer){0};   /* cut short */
    if (te && te < head_end) {
        long n = dechunk((char *)a.body, a.len);
        if (n < 0) return (answer){0};                                                     /* broken off */
        a.len = (size_t)n;
    }
    return a;
}

static answer http_get(int port, const char *path, char *buf) { return http_do(port, "GET", path, buf); }

/* The body's shape, for answers that change from request to request (counters, ages): every
 * run of digits (and of the characters around a number) becomes one '#'. */
static char *shape_of(const char *s, size_t n) {
    char *out = malloc(n + 1), *o = out;
    ck_assert_ptr_nonnull(out);
    for (size_t i = 0; i < n;) {
        if (isdigit((unsigned char)s[i])) {
            while (i < n && (isdigit((unsigned char)s[i]) || strchr(".eE+-", s[i]))) i++;
            *o++ = '#';
        } else {
            *o++ = s[i++];
        }
    }
    *o = '\0';
    return out;
}

/* The step between the points a walk of `calls` allocations tries after its first 100:
 * GOBLIND_ALLOC_POINTS (default 1500) / 10 points in all. */
static long long walk_stride(long long calls) {
    const char *e = getenv("GOBLIND_ALLOC_POINTS");
    long long points = (e && atoi(e) > 1000 ? atoi(e) : 1500) / 10;
    return calls > points ? (calls - 100) / (points - 100) + 1 : 1;
}

/* One route and how its answers are compared. */
typedef struct route {
    const char *path;
    bool changes;             /* its body changes between requests: compare shapes */
    bool streamed;            /* its body is produced on a thread as it is sent (api/body_stream) */
} route;

/* The text an answer is compared by: "status\nbody" (or its shape); NULL for no answer. */
static char *answer_text(const answer *a, const route *r, const char *when) {
    ck_assert_msg(!a->hung, "%s: no answer within 20 s %s (the server hangs)", r->path, when);
    ck_assert_msg(!a->client_error, "%s: the client's %s failed %s", r->path, a->client_error, when);
    if (!a->status) return NULL;
    char *t = NULL;
    if (memchr(a->body, '\0', a->len)) {                /* binary (a zip): its length and FNV-1a hash */
        uint64_t h = 14695981039346656037ull;
        for (size_t i = 0; i < a->len; i++) h = (h ^ (uint8_t)a->body[i]) * 1099511628211ull;
        ck_assert(asprintf(&t, "%d\n%zu bytes, FNV-1a %016llx", a->status, a->len, (unsigned long long)h) > 0);
        return t;
    }
    char *body = r->changes ? shape_of(a->body, a->len) : strndup(a->body, a->len);
    ck_assert_ptr_nonnull(body);
    ck_assert(asprintf(&t, "%d\n%s", a->status, body) > 0);
    free(body);
    return t;
}

/* Every failure point of one route against its answer without a fault. */
static void walk_route(api *a, int port, const route *r, char *buf) {
    api_notify_run(a, "a");                    /* the metrics cache empty: the store is read */
    answer w = http_get(port, r->path, buf);   /* warm: first-use initialisations */
    (void)w;
    api_notify_run(a, "a");
    alloc_fault_arm(0, false);
    answer b = http_get(port, r->path, buf);
    alloc_fault_disarm();
    long long calls = alloc_fault_calls();
    char *base = answer_text(&b, r, "without a fault");
    ck_assert_msg(base && b.status < 500, "%s: no answer without a fault", r->path);
    long long stride = walk_stride(calls);
    unsigned declared = 0, same = 0;
    for (long long at = 1; at <= calls; at += at < 100 ? 1 : stride) {
        for (int rest = 0; rest < 2; rest++) {
            if (rest && at % 7 != 1) continue;
            api_notify_run(a, "a");
            alloc_fault_arm(at, rest);
            answer got = http_get(port, r->path, buf);
            alloc_fault_disarm();
            char when[96];
            snprintf(when, sizeof when, "with allocation %lld failing%s", at, rest ? " (and every one after)" : "");
            char *t = answer_text(&got, r, when);
            if (!t || got.status >= 500) {
                declared++;
            } else {
                if (strcmp(t, base) && getenv("GOBLIND_ALLOC_DUMP")) {   /* both answers, to see the difference */
                    tu_write_str(getenv("GOBLIND_ALLOC_DUMP"), "base.txt", base);
                    tu_write_str(getenv("GOBLIND_ALLOC_DUMP"), "got.txt", t);
                }
                ck_assert_msg(!strcmp(t, base), "%s: allocation %lld failing%s gives a different answer, not a server "
                              "error:\n%.300s\nwithout a fault:\n%.300s", r->path, at, rest ? " (and every one after)" : "",
                              t, base);
                same++;
            }
            free(t);
            api_notify_run(a, "a");
            answer after = http_get(port, r->path, buf);   /* still serving, and right */
            snprintf(when, sizeof when, "after allocation %lld failed%s", at, rest ? " (and every one after)" : "");
            t = answer_text(&after, r, when);
            ck_assert_msg(t && !strcmp(t, base), "%s: after allocation %lld failed, the answer without a fault differs:\n%.300s",
                          r->path, at, t ? t : "(no whole answer)");
            free(t);
        }
    }
    fprintf(stderr, "%s: %lld allocations, stride %lld: %u server errors, %u the same answer\n", r->path, calls, stride,
            declared, same);
    free(base);
}

/* Stores the run x (read from dir) as id. */
static void store_run(store *st, const char *id, const char *dir, const tu_ingested *x) {
    ingest_record rec = tu_ingested_record(x, id, dir, dir);
    ck_assert_int_eq(store_ingest(st, &rec), 0);
}

/* What GET path answers, as "status\nbody" (NULL when no whole answer). */
static char *get_text(int port, const char *path, char *buf) {
    static const route plain = {"", false, false};
    answer a = http_get(port, path, buf);
    route r = plain;
    r.path = path;
    return answer_text(&a, &r, "(no fault)");
}

/* The run's answers that must be all there or all gone after a DELETE. */
static const char *const RUN_PARTS[] = {"/runs/a/metrics", "/runs/a/analysis", "/runs/a/kernels", "/runs/a/report.md"};
#define N_RUN_PARTS (sizeof RUN_PARTS / sizeof RUN_PARTS[0])

/* DELETE /runs/a with each allocation failing in turn, the run stored again before each: the
 * answer is the answer without a fault (the run then gone) or a server error (the run then
 * whole, or gone whole), never a 404 for the run that was there, and never a run left in part. */
static void walk_delete(api *a, int port, store *st, const char *dir, const tu_ingested *x, char *buf) {
    char *whole[N_RUN_PARTS];
    for (size_t i = 0; i < N_RUN_PARTS; i++) {
        whole[i] = get_text(port, RUN_PARTS[i], buf);
        ck_assert_msg(whole[i] && !strncmp(whole[i], "200\n", 4), "%s: no answer before the DELETE", RUN_PARTS[i]);
    }
    answer w = http_do(port, "DELETE", "/runs/a", buf);      /* warm: first-use initialisations */
    (void)w;
    store_run(st, "a", dir, x);
    api_notify_run(a, "a");
    static const route del = {"DELETE /runs/a", false, false};
    alloc_fault_arm(0, false);
    answer b = http_do(port, "DELETE", "/runs/a", buf);
    alloc_fault_disarm();
    long long calls = alloc_fault_calls();
    char *base = answer_text(&b, &del, "without a fault");
    ck_assert_msg(base && b.status == 200, "DELETE /runs/a: %s without a fault", base ? base : "no answer");
    long long stride = walk_stride(calls);
    unsigned declared = 0, same = 0;
    for (long long at = 1; at <= calls; at += at < 100 ? 1 : stride) {
        for (int rest = 0; rest < 2; rest++) {
            if (rest && at % 7 != 1) continue;
            store_run(st, "a", dir, x);
            api_notify_run(a, "a");
            alloc_fault_arm(at, rest);
            answer got = http_do(port, "DELETE", "/runs/a", buf);
            alloc_fault_disarm();
            char when[96];
            snprintf(when, sizeof when, "with allocation %lld failing%s", at, rest ? " (and every one after)" : "");
            char *t = answer_text(&got, &del, when);
            bool error = !t || got.status >= 500;
            ck_assert_msg(error || !strcmp(t, base), "DELETE /runs/a %s: %.300s, not a server error or:\n%.300s", when,
                          t, base);
            if (error) declared++;
            else same++;
            size_t there = 0, gone = 0;
            for (size_t i = 0; i < N_RUN_PARTS; i++) {
                char *now = get_text(port, RUN_PARTS[i], buf);
                ck_assert_ptr_nonnull(now);
                if (!strcmp(now, whole[i])) there++;
                else if (!strncmp(now, "404\n", 4)) gone++;
                else ck_abort_msg("DELETE /runs/a %s: %s answers neither as before nor 404:\n%.300s", when,
                                  RUN_PARTS[i], now);
                free(now);
            }
            ck_assert_msg(there == N_RUN_PARTS || gone == N_RUN_PARTS,
                          "DELETE /runs/a %s: the run is left in part (%zu answers as before, %zu gone)", when, there, gone);
            ck_assert_msg(error || gone == N_RUN_PARTS, "DELETE /runs/a %s answered %d but the run is still there", when,
                          got.status);
            free(t);
        }
    }
    store_run(st, "a", dir, x);
    api_notify_run(a, "a");
    fprintf(stderr, "DELETE /runs/a: %lld allocations, stride %lld: %u server errors, %u the same answer\n", calls,
            stride, declared, same);
    free(base);
    for (size_t i = 0; i < N_RUN_PARTS; i++) free(whole[i]);
}

#define SSE_HALF (ANSWER_MAX / 2)   /* the client buffer's halves: raw bytes, text */

/* A change of a new run announced with each allocation failing in turn (on the thread that
 * announces it; the stream's own thread may take the failure too): a stream open all along
 * receives the run's "created" and "complete", whole, or an "event: resync", and then the next
 * run's events; never an event with a key missing, and never a hole without the resync. A
 * stream the server broke off is opened again after the last id it gave, and must say resync
 * where it cannot replay. */
static void walk_events(api *a, int port, store *st, const char *dir, const tu_ingested *x, char *buf) {
    sse s = {.raw = buf, .text = buf + SSE_HALF, .half = SSE_HALF};
    ck_assert(sse_open(&s, port));
    char msg[4096];
    bool hung;
    ck_assert_msg(sse_next(&s, msg, sizeof msg, &hung) && strstr(msg, "retry:"), "no stream start: %s", msg);
    store_run(st, "w0", dir, x);
    alloc_fault_arm(0, false);
    api_notify_run(a, "w0");
    alloc_fault_disarm();
    long long calls = alloc_fault_calls();
    bool found;
    ck_assert_int_eq(retention_forget(st, "w0", 1000, "test", &found), 0);
    long long stride = walk_stride(calls);
    unsigned whole = 0, resync = 0, reopened = 0;
    unsigned long long first_id = 0;
    for (long long at = 1; at <= calls + 1; at += at < 100 ? 1 : stride) {
        char faulted[32], marker[32];
        snprintf(faulted, sizeof faulted, "f%lld", at);
        snprintf(marker, sizeof marker, "m%lld", at);
        if (at <= calls) {
            store_run(st, faulted, dir, x);
            alloc_fault_arm(at, at % 7 == 1);
            api_notify_run(a, faulted);
            alloc_fault_disarm();
        }
        store_run(st, marker, dir, x);
        api_notify_run(a, marker);
        /* read up to the marker's "complete": what came before it for the faulted run */
        bool got_resync = false, created = false, completed = false;
        for (;;) {
            if (!sse_next(&s, msg, sizeof msg, &hung)) {
                ck_assert_msg(!hung, "/events: nothing within 20 s (point %lld)", at);
                close(s.fd);
                ck_assert_msg(++reopened < 100, "/events: the stream keeps ending (point %lld)", at);
                usleep(50 * 1000);                   /* a broken stream's slot may not be free yet */
                ck_assert_msg(sse_open(&s, port), "/events: cannot open again");
                continue;
            }
            if (strstr(msg, "event: resync")) { got_resync = true; continue; }
            const char *data = strstr(msg, "data: ");
            if (!data) continue;                                        /* retry:, keep-alive */
            json_error_t err;
            json_t *ev = json_loads(data + 6, JSON_DISABLE_EOF_CHECK, &err);
            ck_assert_msg(ev, "/events: data not JSON (point %lld): %s", at, msg);
            json_int_t id = json_integer_value(json_object_get(ev, "id"));
            const char *kind = json_string_value(json_object_get(ev, "event")), *run = json_string_value(json_object_get(ev, "run"));
            ck_assert_msg(kind && run && id > 0 && json_object_get(ev, "at"), "/events: a key missing: %s", msg);
            if (strcmp(kind, "regression"))
                ck_assert_msg(json_is_string(json_object_get(ev, "status")) && json_is_string(json_object_get(ev, "etag")),
                              "/events: status or etag missing: %s", msg);
            ck_assert_msg((unsigned long long)id > s.last_id, "/events: id %lld after %llu", (long long)id, s.last_id);
            s.last_id = (unsigned long long)id;
            if (!first_id) first_id = s.last_id;
            bool done = !strcmp(run, marker) && !strcmp(kind, "complete");
            if (!strcmp(run, faulted)) {
                if (!strcmp(kind, "created")) created = true;
                if (!strcmp(kind, "complete")) completed = true;
            }
            json_decref(ev);
            if (done) break;
        }
        if (at <= calls) {
            ck_assert_msg((created && completed) || got_resync,
                          "/events: allocation %lld failing lost run %s's %s without a resync", at, faulted,
                          created ? "complete" : "created");
            if (created && completed) whole++;
            else resync++;
        }
        /* both forgotten (not announced): each point's change then reads a series of the same
         * size, so the points reach the same allocations, the event's own included */
        ck_assert_int_eq(retention_forget(st, marker, 1000, "test", &found), 0);
        if (at <= calls) ck_assert_int_eq(retention_forget(st, faulted, 1000, "test", &found), 0);
    }
    close(s.fd);
    /* a replay from before the losses starts with the resync (the ring has a hole there) */
    sse r = {.raw = buf, .text = buf + SSE_HALF, .half = SSE_HALF, .last_id = first_id};
    ck_assert(sse_open(&r, port));
    ck_assert_msg(sse_next(&r, msg, sizeof msg, &hung) && strstr(msg, "retry:"), "/events: no start of a replay");
    if (resync) {
        ck_assert_msg(sse_next(&r, msg, sizeof msg, &hung), "/events: nothing after a replay's start");
        ck_assert_msg(strstr(msg, "event: resync"), "/events: a replay across a loss without resync: %s", msg);
    }
    close(r.fd);
    fprintf(stderr, "/events: %lld allocations, stride %lld: %u announced whole, %u by a resync, %u reopened\n", calls,
            stride, whole, resync, reopened);
}

/* The routes walked, and how their answers are compared. */
static const route ROUTES[] = {
    {"/healthz", false, false}, {"/readyz", false, false}, {"/runs", true, false}, {"/runs/a", true, false},
    {"/runs/a/metrics", false, false}, {"/runs/a/analysis", false, false}, {"/runs/a/report.md", false, false},
    {"/runs/a/kernels", false, false}, {"/runs/a/kernels.csv", false, true}, {"/runs/a/kernels.jsonl", false, true},
    {"/runs/a/kernels?limit=2000", false, true}, {"/runs?profile=goblin", true, false},
    {"/runs/zzz", false, false}, {"/compare?base=a&candidate=b", false, false}, {"/series", true, false},
    {"/series/s1", true, false}, {"/metrics", true, false}, {"/openapi.json", false, false}, {"/", false, false},
    {"/runs/n/npu_reference.zip", false, true}};

static void *nothing(void *arg) { return arg; }

/* Lets glibc free the stacks (and TLS vectors) of detached threads that have exited: it does
 * so when it queues the stack of a thread joined later, such as this one's. */
static void reclaim_stacks(void) {
    usleep(20 * 1000);
    pthread_t t;
    if (pthread_create(&t, NULL, nothing, NULL) == 0) pthread_join(t, NULL);
}

/* Which routes one life of the API walks. */
typedef enum { WARM_UP, WALK_ANSWERED, WALK_STREAMED } serve_mode;

/* One life of a store and an API on it: runs a and b stored, the API started, then either each
 * route asked once and one request served with its first allocation failing (WARM_UP: the
 * libraries' one-time initialisations), or the answered or the streamed routes walked; then the
 * API stopped and the store closed. */
static void serve_once(const char *run, serve_mode mode, char *buf) {
    char *dir = tu_tempdir(), *db = NULL, *err = NULL;
    ck_assert(asprintf(&db, "%s/g.db", dir) > 0);
    store *st = store_open(db, 0, &err);
    ck_assert_msg(st != NULL, "%s", err ? err : "");
    ck_assert_int_eq(retention_init(st), 0);
    tu_ingested x;
    tu_ingest(run, &x);
    store_run(st, "a", run, &x);
    store_run(st, "b", run, &x);
    char *npu = tu_tempdir();                          /* an msprof run: /runs/n/npu_reference.zip */
    tu_copy_fixture("msprof/mstt_compute_advice_kernel_details.csv", npu, "kernel_details.csv");
    tu_ingested xn;
    tu_ingest(npu, &xn);
    store_run(st, "n", npu, &xn);
    goblind_counters counters;
    api *a = tu_api_start(st, &counters, 10);
    int port = api_port(a);
    const char *only = getenv("GOBLIND_ALLOC_ROUTE");       /* one route, when looking at one */
    for (size_t i = 0; i < sizeof ROUTES / sizeof ROUTES[0]; i++) {
        if (mode == WARM_UP) (void)http_get(port, ROUTES[i].path, buf);
        else if (ROUTES[i].streamed == (mode == WALK_STREAMED) && (!only || !strcmp(only, ROUTES[i].path)))
            walk_route(a, port, &ROUTES[i], buf);
    }
    if (mode == WALK_ANSWERED && (!only || !strcmp(only, "DELETE /runs/a"))) walk_delete(a, port, st, run, &x, buf);
    if (mode == WALK_STREAMED && (!only || !strcmp(only, "/events"))) walk_events(a, port, st, run, &x, buf);
    if (mode == WARM_UP) {
        alloc_fault_arm(1, false);
        (void)http_get(port, "/healthz", buf);
        alloc_fault_disarm();
    }
    api_stop(a);
    store_close(st);
    tu_ingested_free(&x);
    tu_ingested_free(&xn);
    tu_rmrf(npu);
    free(npu);
    tu_rmrf(dir);
    free(db);
    free(dir);
}

START_TEST(api_under_failures) {
    char *run = tu_goblin_run(40, 40, false);
    tu_write_str(run, "goblind.json", "{\"labels\": {\"series\": \"s1\"}}");   /* the series /series/s1 */
    char *buf = malloc(ANSWER_MAX);
    ck_assert_ptr_nonnull(buf);
    serve_once(run, WARM_UP, buf);
    /* the warm-up's producer threads (the exports, the NPU archive) may still be exiting: let
     * glibc free their stacks before the first count */
    for (long long prev = -1, i = 0; i < 100 && alloc_fault_live() != prev; i++) {
        prev = alloc_fault_live();
        usleep(50 * 1000);
        reclaim_stacks();
    }
    /* once the API is stopped and the store closed (SQLite keeps per-connection caches), every
     * block is freed: the answered routes, then the streamed ones, their producer threads' own
     * blocks included (main() turned glibc's stack cache off, and an exited detached thread's
     * stack and TLS vector are freed when glibc next queues a stack: reclaim_stacks) */
    for (serve_mode m = WALK_ANSWERED; m <= WALK_STREAMED; m++) {
        long long live0 = alloc_fault_live();
        serve_once(run, m, buf);
        for (int i = 0; i < 100 && alloc_fault_live() != live0; i++) reclaim_stacks();
        ck_assert_msg(alloc_fault_live() == live0, "the API leaks %lld blocks (%s routes)", alloc_fault_live() - live0,
                      m == WALK_STREAMED ? "streamed" : "answered");
    }
    free(buf);
    tu_rmrf(run);
    free(run);
}
END_TEST

/* The dropped count of webhook receiver 0. */
static unsigned long webhook_dropped(webhooks *w) {
    unsigned long dropped, failed, delivered;
    webhooks_receiver_counts(w, 0, &dropped, &failed, &delivered);
    ck_assert_uint_eq(failed + delivered, 0);
    return dropped;
}

/* An event posted while allocations fail never reaches the receiver's queue: no memory for its
 * copy (the posting's first allocation), then none for the queue's ring (its second, the ring
 * being empty). Each is counted as dropped, the first logged once, and nothing leaks. The
 * receiver is a bound socket that does not listen, so nothing is ever sent. */
START_TEST(webhook_events_without_memory_are_counted) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    socklen_t len = sizeof sa;
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/hook", ntohs(sa.sin_port));
    char log[] = "/tmp/goblind-webhook-log-XXXXXX";
    int log_fd = mkstemp(log);
    ck_assert_int_ge(log_fd, 0);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    dup2(log_fd, STDERR_FILENO);

    const char *urls[] = {url};
    webhooks *w = webhooks_start(urls, 1);
    ck_assert_ptr_nonnull(w);
    long long live0 = alloc_fault_live();
    alloc_fault_arm(1, true);                  /* the event's copy */
    webhooks_post(w, "{\"event\":\"complete\",\"run\":\"r\"}");
    alloc_fault_disarm();
    ck_assert_uint_eq(webhook_dropped(w), 1);
    alloc_fault_arm(2, true);                  /* the queue's ring */
    webhooks_post(w, "{\"event\":\"complete\",\"run\":\"r\"}");
    long long calls = alloc_fault_calls();
    alloc_fault_disarm();
    ck_assert_int_eq(calls, 2);
    ck_assert_uint_eq(webhook_dropped(w), 2);
    ck_assert_int_eq(alloc_fault_live(), live0);
    webhooks_stop(w);

    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    char text[2048] = {0};
    ck_assert_int_ge(pread(log_fd, text, sizeof text - 1, 0), 0);
    close(log_fd);
    unlink(log);
    close(fd);
    const char *line = strstr(text, "events dropped: out of memory");
    ck_assert_msg(line && !strstr(line + 1, "events dropped"), "log: %s", text);
    ck_assert_msg(strstr(text, url), "log: %s", text);
}
END_TEST

int main(int argc, char **argv) {
    (void)argc;
    /* glibc keeps an exited thread's stack, with the TLS vector it allocated, for the next
     * thread: how many it keeps depends on how many streamed bodies' producer threads
     * overlapped, which would make the block count depend on timing. Run without that cache. */
    static const char NO_STACK_CACHE[] = "glibc.pthread.stack_cache_size=0";
    const char *t = getenv("GLIBC_TUNABLES");
    if (!t || !strstr(t, NO_STACK_CACHE)) {
        char *tunables = NULL;
        if (asprintf(&tunables, "%s%s%s", t ? t : "", t ? ":" : "", NO_STACK_CACHE) < 0) return EXIT_FAILURE;
        setenv("GLIBC_TUNABLES", tunables, 1);
        execv("/proc/self/exe", argv);
        perror("check_alloc_failure_api: re-exec with GLIBC_TUNABLES");
        return EXIT_FAILURE;
    }
    /* the API's temporary files (npu_reference.zip) in a directory of the test's own, which must
     * hold none of them at the end */
    char tmp[] = "/tmp/goblind-alloc-api-XXXXXX";
    if (!mkdtemp(tmp)) return EXIT_FAILURE;
    setenv("TMPDIR", tmp, 1);
    alloc_fault_init();
    Suite *s = suite_create("alloc_failure_api");
    TCase *tc = tcase_create("routes");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, api_under_failures);
    suite_add_tcase(s, tc);
    TCase *hooks = tcase_create("webhooks");
    tcase_add_test(hooks, webhook_events_without_memory_are_counted);
    suite_add_tcase(s, hooks);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    DIR *d = opendir(tmp);
    for (struct dirent *e; d && (e = readdir(d));)
        if (!strncmp(e->d_name, "goblind-npuref-", 15)) {
            fprintf(stderr, "check_alloc_failure_api: the API left %s/%s behind\n", tmp, e->d_name);
            failed++;
        }
    if (d) closedir(d);
    tu_rmrf(tmp);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
