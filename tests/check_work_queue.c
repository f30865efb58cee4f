/* check_work_queue: base/work_queue against what its header promises, observed from the
 * handler's side: items in push order per lane, lane 0 before lane 1, batches of one lane and
 * at most `batch` items, the three full-queue policies (refuse, wait, drop the oldest), many
 * producers keeping their own order, wq_drain, wq_stop handling what is left, and wq_sleep
 * cut short by wq_stop. A gate holds the handler so that the queue's state is known. */
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "base/work_queue.h"

#define MAX_SEEN 50000

typedef struct seen {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool gate_open;          /* false: the handler waits in its first call */
    int entered;             /* handle calls begun */
    intptr_t item[MAX_SEEN]; /* handled items, in order */
    int batch_of[MAX_SEEN];  /* the handle call that got each */
    size_t n;
    size_t biggest_batch;
    bool mixed_lanes;        /* a batch held items of both lanes (lane 1 items are >= 1000000) */
    intptr_t dropped[16];
    size_t ndropped;
    work_queue *q;           /* for the sleeping handler */
    int slept;               /* wq_sleep's answer: -1 not yet */
} seen;

static void seen_init(seen *s, bool gate_open) {
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    s->gate_open = gate_open;
    s->entered = 0;
    s->n = s->biggest_batch = s->ndropped = 0;
    s->mixed_lanes = false;
    s->slept = -1;
}

static void handle(void *user, void *const *items, size_t n) {
    seen *s = user;
    pthread_mutex_lock(&s->mu);
    int call = s->entered++;
    pthread_cond_broadcast(&s->cv);
    while (!s->gate_open) pthread_cond_wait(&s->cv, &s->mu);
    if (n > s->biggest_batch) s->biggest_batch = n;
    for (size_t i = 0; i < n; i++) {
        intptr_t v = (intptr_t)items[i];
        if ((v >= 1000000) != ((intptr_t)items[0] >= 1000000)) s->mixed_lanes = true;
        if (s->n < MAX_SEEN) { s->batch_of[s->n] = call; s->item[s->n++] = v; }
    }
    pthread_mutex_unlock(&s->mu);
}

static void drop(void *user, void *item) {
    seen *s = user;
    pthread_mutex_lock(&s->mu);
    if (s->ndropped < 16) s->dropped[s->ndropped++] = (intptr_t)item;
    pthread_mutex_unlock(&s->mu);
}

/* Waits until the handler has begun `calls` calls (it then holds its items). */
static void wait_entered(seen *s, int calls) {
    pthread_mutex_lock(&s->mu);
    while (s->entered < calls) pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
}

static void open_gate(seen *s) {
    pthread_mutex_lock(&s->mu);
    s->gate_open = true;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

static work_queue *start(seen *s, size_t capacity, wq_full full, size_t batch) {
    wq_config c = {.capacity = capacity, .when_full = full, .batch = batch, .handle = handle, .drop = drop, .user = s};
    work_queue *q = wq_start(&c);
    ck_assert_ptr_nonnull(q);
    return q;
}

#define P(v) ((void *)(intptr_t)(v))

START_TEST(items_in_push_order_batches_bounded) {
    static seen s;
    seen_init(&s, true);
    work_queue *q = start(&s, 0, WQ_FULL_REFUSE, 7);
    for (int i = 0; i < 5000; i++) ck_assert(wq_push(q, P(i), 0));
    wq_drain(q);
    ck_assert_uint_eq(s.n, 5000);
    for (int i = 0; i < 5000; i++) ck_assert_int_eq(s.item[i], i);
    ck_assert_uint_le(s.biggest_batch, 7);
    wq_stop(q);
}
END_TEST

START_TEST(lane_zero_first_and_batches_never_mix_lanes) {
    static seen s;
    seen_init(&s, false);
    work_queue *q = start(&s, 0, WQ_FULL_REFUSE, 100);
    ck_assert(wq_push(q, P(1), 0));
    wait_entered(&s, 1);                           /* item 1 is being handled; the rest waits */
    ck_assert(wq_push(q, P(1000001), 1));
    ck_assert(wq_push(q, P(1000002), 1));
    ck_assert(wq_push(q, P(2), 0));
    ck_assert(wq_push(q, P(3), 0));
    open_gate(&s);
    wq_drain(q);
    const intptr_t want[] = {1, 2, 3, 1000001, 1000002};
    ck_assert_uint_eq(s.n, 5);
    for (size_t i = 0; i < 5; i++) ck_assert_int_eq(s.item[i], want[i]);
    ck_assert(!s.mixed_lanes);
    ck_assert_int_eq(s.batch_of[1], s.batch_of[2]);   /* 2 and 3: one call (batch 100) */
    ck_assert_int_ne(s.batch_of[2], s.batch_of[3]);   /* lane 1 in a call of its own */
    wq_stop(q);
}
END_TEST

START_TEST(full_queue_refuses) {
    static seen s;
    seen_init(&s, false);
    work_queue *q = start(&s, 2, WQ_FULL_REFUSE, 1);
    ck_assert(wq_push(q, P(1), 0));
    wait_entered(&s, 1);                           /* taken: the queue is empty again */
    ck_assert(wq_push(q, P(2), 0));
    ck_assert(wq_push(q, P(3), 1));
    ck_assert(!wq_push(q, P(4), 0));               /* two queued: full */
    ck_assert(!wq_push(q, P(5), 1));
    open_gate(&s);
    wq_drain(q);
    ck_assert_uint_eq(s.n, 3);
    ck_assert_int_eq(s.item[2], 3);
    ck_assert_uint_eq(wq_dropped(q), 0);
    wq_stop(q);
}
END_TEST

START_TEST(full_queue_drops_the_lanes_oldest) {
    static seen s;
    seen_init(&s, false);
    work_queue *q = start(&s, 2, WQ_FULL_DROP_OLDEST, 1);
    ck_assert(wq_push(q, P(1), 0));
    wait_entered(&s, 1);
    ck_assert(wq_push(q, P(2), 0));
    ck_assert(wq_push(q, P(3), 0));
    ck_assert(wq_push(q, P(4), 0));                /* 2 goes */
    ck_assert(wq_push(q, P(5), 0));                /* 3 goes */
    ck_assert_uint_eq(wq_dropped(q), 2);
    ck_assert_uint_eq(s.ndropped, 2);
    ck_assert_int_eq(s.dropped[0], 2);
    ck_assert_int_eq(s.dropped[1], 3);
    open_gate(&s);
    wq_drain(q);
    const intptr_t want[] = {1, 4, 5};
    ck_assert_uint_eq(s.n, 3);
    for (size_t i = 0; i < 3; i++) ck_assert_int_eq(s.item[i], want[i]);
    wq_stop(q);
}
END_TEST

START_TEST(full_lane_empty_refuses_instead_of_dropping_the_other) {
    static seen s;
    seen_init(&s, false);
    work_queue *q = start(&s, 1, WQ_FULL_DROP_OLDEST, 1);
    ck_assert(wq_push(q, P(1), 0));
    wait_entered(&s, 1);
    ck_assert(wq_push(q, P(2), 0));
    ck_assert(!wq_push(q, P(1000001), 1));         /* lane 1 has nothing to drop */
    ck_assert_uint_eq(wq_dropped(q), 0);
    open_gate(&s);
    wq_stop(q);
    ck_assert_uint_eq(s.n, 2);
}
END_TEST

typedef struct producer {
    work_queue *q;
    int id, count;
    bool all_ok;
} producer;

static void *produce(void *arg) {
    producer *p = arg;
    p->all_ok = true;
    for (int i = 0; i < p->count; i++) p->all_ok &= wq_push(p->q, P(p->id * 100000 + i), 0);
    return NULL;
}

START_TEST(full_queue_waits_for_room) {
    static seen s;
    seen_init(&s, false);
    work_queue *q = start(&s, 1, WQ_FULL_WAIT, 1);
    ck_assert(wq_push(q, P(1), 0));
    wait_entered(&s, 1);
    ck_assert(wq_push(q, P(2), 0));                /* fills the queue */
    producer p = {.q = q, .id = 0, .count = 3};    /* items 0, 1, 2: they wait for room */
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, produce, &p), 0);
    open_gate(&s);
    pthread_join(th, NULL);
    ck_assert(p.all_ok);
    wq_drain(q);
    const intptr_t want[] = {1, 2, 0, 1, 2};
    ck_assert_uint_eq(s.n, 5);
    for (size_t i = 0; i < 5; i++) ck_assert_int_eq(s.item[i], want[i]);
    wq_stop(q);
}
END_TEST

START_TEST(producers_keep_their_own_order) {
    static seen s;
    seen_init(&s, true);
    work_queue *q = start(&s, 64, WQ_FULL_WAIT, 16);
    producer p[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        p[i] = (producer){.q = q, .id = i + 1, .count = 10000};
        ck_assert_int_eq(pthread_create(&th[i], NULL, produce, &p[i]), 0);
    }
    for (int i = 0; i < 4; i++) { pthread_join(th[i], NULL); ck_assert(p[i].all_ok); }
    wq_drain(q);
    ck_assert_uint_eq(s.n, 40000);
    int next[5] = {0};
    for (size_t k = 0; k < s.n; k++) {
        int id = (int)(s.item[k] / 100000), i = (int)(s.item[k] % 100000);
        ck_assert(id >= 1 && id <= 4);
        ck_assert_int_eq(i, next[id]);
        next[id]++;
    }
    ck_assert_uint_le(s.biggest_batch, 16);
    wq_stop(q);
}
END_TEST

START_TEST(stop_handles_what_is_queued) {
    static seen s;
    seen_init(&s, false);
    work_queue *q = start(&s, 0, WQ_FULL_REFUSE, 2);
    for (int i = 0; i < 9; i++) ck_assert(wq_push(q, P(i), i % 2));
    wait_entered(&s, 1);
    open_gate(&s);
    wq_stop(q);                                    /* no drain first */
    ck_assert_uint_eq(s.n, 9);
}
END_TEST

static void sleepy(void *user, void *const *items, size_t n) {
    (void)items; (void)n;
    seen *s = user;
    pthread_mutex_lock(&s->mu);
    s->entered++;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    bool slept = wq_sleep(s->q, 600000);           /* ten minutes, unless stopped */
    pthread_mutex_lock(&s->mu);
    s->slept = slept;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

START_TEST(stop_cuts_a_sleep_short) {
    static seen s;
    seen_init(&s, true);
    wq_config c = {.handle = sleepy, .user = &s, .batch = 1};
    work_queue *q = wq_start(&c);
    ck_assert_ptr_nonnull(q);
    s.q = q;
    ck_assert(!wq_stopping(q));
    ck_assert(wq_sleep(q, 1));                     /* a short sleep runs its course */
    ck_assert(wq_push(q, P(1), 0));
    wait_entered(&s, 1);
    wq_stop(q);                                    /* returns: the handler's sleep ended */
    ck_assert_int_eq(s.slept, 0);
}
END_TEST

/* wq_close wakes a queue's sleeping handler and refuses pushes without joining: an owner of
 * several queues closes them all, then joins each (webhooks_stop). Each handler here sleeps
 * ten minutes unless its queue is closed: the second join does not wait for the first. */
START_TEST(close_ends_every_sleep_before_the_joins) {
    static seen a, b;
    seen_init(&a, true);
    seen_init(&b, true);
    wq_config ca = {.handle = sleepy, .user = &a, .batch = 1}, cb = {.handle = sleepy, .user = &b, .batch = 1};
    work_queue *qa = wq_start(&ca), *qb = wq_start(&cb);
    ck_assert(qa && qb);
    a.q = qa;
    b.q = qb;
    ck_assert(wq_push(qa, P(1), 0) && wq_push(qb, P(2), 0));
    wait_entered(&a, 1);
    wait_entered(&b, 1);
    wq_close(qa);
    wq_close(qb);
    ck_assert(wq_stopping(qa) && wq_stopping(qb));
    ck_assert(!wq_push(qa, P(3), 0));              /* closed: refused, the caller keeps it */
    pthread_mutex_lock(&b.mu);                     /* b's sleep ends without b being joined */
    while (b.slept < 0) pthread_cond_wait(&b.cv, &b.mu);
    pthread_mutex_unlock(&b.mu);
    wq_stop(qa);
    wq_stop(qb);
    ck_assert_int_eq(a.slept, 0);
    ck_assert_int_eq(b.slept, 0);
}
END_TEST

static Suite *work_queue_suite(void) {
    Suite *su = suite_create("work_queue");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, items_in_push_order_batches_bounded);
    tcase_add_test(tc, lane_zero_first_and_batches_never_mix_lanes);
    tcase_add_test(tc, full_queue_refuses);
    tcase_add_test(tc, full_queue_drops_the_lanes_oldest);
    tcase_add_test(tc, full_lane_empty_refuses_instead_of_dropping_the_other);
    tcase_add_test(tc, full_queue_waits_for_room);
    tcase_add_test(tc, producers_keep_their_own_order);
    tcase_add_test(tc, stop_handles_what_is_queued);
    tcase_add_test(tc, stop_cuts_a_sleep_short);
    tcase_add_test(tc, close_ends_every_sleep_before_the_joins);
    suite_add_tcase(su, tc);
    return su;
}

int main(void) {
    SRunner *sr = srunner_create(work_queue_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
