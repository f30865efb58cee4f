/* Tests: GET /events streams (api/events.c) against a slow client: a stream whose client reads
 * too slowly for the ring of kept events (EVENTS_KEPT) gets `event: resync` where events it
 * never received were dropped from the ring, then the events after, never a silent hole. */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "api/events.h"
#include "api/http_api.h"
#include "storage/store.h"
#include "tests/test_api.h"
#include "tests/test_util.h"

/* More events than the ring keeps plus what the kernel holds for a client that reads nothing
 * (a socket's send buffer grows up to tcp_wmem's maximum, 4 MiB by default): ~330 bytes an
 * event, so the maximum's worth at 300 bytes, and twice the ring. */
static int events_to_make(void) {
    long wmem_max = 4 << 20, lo, mid;
    FILE *f = fopen("/proc/sys/net/ipv4/tcp_wmem", "r");
    if (f) {
        if (fscanf(f, "%ld %ld %ld", &lo, &mid, &wmem_max) != 3) wmem_max = 4 << 20;
        fclose(f);
    }
    return (int)(wmem_max / 300) + 2 * EVENTS_KEPT;
}

/* Reads what the stream sends until nothing comes for 5 s (a loaded sanitizer build's server
 * thread may pause for a second); the bytes into *out. */
static size_t read_all(int fd, char **out) {
    size_t cap = 1 << 20, len = 0;
    char *b = malloc(cap);
    ck_assert_ptr_nonnull(b);
    struct timeval tv = {.tv_sec = 5};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    for (;;) {
        if (len + 65536 > cap) {
            cap *= 2;
            b = realloc(b, cap);
            ck_assert_ptr_nonnull(b);
        }
        ssize_t r = recv(fd, b + len, cap - len - 1, 0);
        if (r <= 0) break;
        len += (size_t)r;
    }
    b[len] = '\0';
    *out = b;
    return len;
}

START_TEST(slow_stream_gets_resync_for_events_the_ring_dropped) {
    char *dir = tu_tempdir(), *db = NULL, *err = NULL;
    ck_assert(asprintf(&db, "%s/g.db", dir) > 0);
    store *st = store_open(db, 0, &err);
    ck_assert_msg(st != NULL, "%s", err ? err : "");
    goblind_counters counters;
    api *a = tu_api_start(st, &counters, 0);
    /* a client with the smallest receive buffer, reading nothing while the events are made */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    int small = 1024;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)api_port(a))};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    static const char req[] = "GET /events HTTP/1.0\r\n\r\n";   /* 1.0: the body unchunked */
    ck_assert_int_eq(send(fd, req, sizeof req - 1, MSG_NOSIGNAL), (ssize_t)(sizeof req - 1));
    usleep(200 * 1000);                                 /* the stream is open before the first event */
    char id[151];                                       /* a long id: large events */
    memset(id, 'r', sizeof id - 1);
    id[sizeof id - 1] = '\0';
    int made = events_to_make();
    for (int i = 0; i < made; i++) {             /* one event per change: failed, complete, ... */
        ck_assert_int_eq(store_set_status(st, id, dir, dir, i % 2 ? RUN_COMPLETE : RUN_FAILED, 1000 + i), 0);
        api_notify_run(a, id);
    }
    char *text;
    read_all(fd, &text);
    close(fd);
    /* every event id in order, a resync where ids jump */
    unsigned long long last = 0, events = 0, resyncs = 0, holes_without = 0;
    bool resync_since = false;
    for (const char *p = text; (p = strstr(p, "\n\n")) != NULL; p += 2) {
        const char *msg = p + 2;
        if (!strncmp(msg, "event: resync", 13)) { resyncs++; resync_since = true; continue; }
        if (strncmp(msg, "id: ", 4)) continue;
        unsigned long long id = strtoull(msg + 4, NULL, 10);
        ck_assert_msg(id > last, "id %llu after %llu", id, last);
        if (last && id != last + 1 && !resync_since) holes_without++;
        last = id;
        resync_since = false;
        events++;
    }
    ck_assert_msg(events > 0, "no event came: %.300s", text);
    ck_assert_msg(holes_without == 0, "%llu holes in the ids without a resync", holes_without);
    ck_assert_msg(resyncs > 0 && events < (unsigned long long)made,
                  "the client was not slow enough: %llu events, %llu resyncs", events, resyncs);
    fprintf(stderr, "slow stream: %llu of %d events received, %llu resyncs\n", events, made, resyncs);
    free(text);
    api_stop(a);
    store_close(st);
    tu_rmrf(dir);
    free(db);
    free(dir);
}
END_TEST

int main(void) {
    Suite *s = suite_create("events");
    TCase *tc = tcase_create("streams");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, slow_stream_gets_resync_for_events_the_ring_dropped);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
