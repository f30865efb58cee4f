/* body_stream: a ring buffer per stream between a producer thread and libmicrohttpd's content
 * reader, all streams behind the set's one mutex (see body_stream.h). */
#include "api/body_stream.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct body_stream {
    body_streams *set;
    body_stream *prev, *next;
    pthread_cond_t can_write;
    char *buf;
    size_t head, len;                /* ring: bytes [head, head + len) modulo BODY_STREAM_BUFFER */
    bool done, failed;               /* the producer returned (failed: false) */
    bool suspended;                  /* the connection waits for bytes (content reader returned 0) */
    bool response_gone;              /* libmicrohttpd freed the response: the connection is gone */
    atomic_bool cancelled;
    int refs;                        /* the response's and the producer's */
    struct MHD_Connection *conn;
    body_producer fn;
    void *arg;
    void (*free_arg)(void *);
};

struct body_streams {
    pthread_mutex_t lock;
    pthread_cond_t idle;             /* signalled when a producer ends */
    body_stream *head;
    int active, max;                 /* producers running */
};

body_streams *body_streams_new(int max_streams) {
    body_streams *set = calloc(1, sizeof *set);
    if (!set) return NULL;
    pthread_mutex_init(&set->lock, NULL);
    pthread_cond_init(&set->idle, NULL);
    set->max = max_streams;
    return set;
}

/* Set lock held. Resumes the connection if it is waiting for bytes. */
static void wake_reader(body_stream *s) {
    if (s->suspended && !s->response_gone) {
        s->suspended = false;
        MHD_resume_connection(s->conn);
    }
}

/* Set lock held. Drops one reference; the last frees the stream. */
static void unref(body_stream *s) {
    if (--s->refs > 0) return;
    body_streams *set = s->set;
    if (s->prev) s->prev->next = s->next;
    else set->head = s->next;
    if (s->next) s->next->prev = s->prev;
    pthread_cond_destroy(&s->can_write);
    free(s->buf);
    free(s);
}

bool body_stream_write(body_stream *s, const char *data, size_t n) {
    body_streams *set = s->set;
    pthread_mutex_lock(&set->lock);
    while (n > 0 && !atomic_load(&s->cancelled)) {
        if (s->len == BODY_STREAM_BUFFER) {
            wake_reader(s);
            pthread_cond_wait(&s->can_write, &set->lock);
            continue;
        }
        size_t tail = (s->head + s->len) % BODY_STREAM_BUFFER;
        size_t room = BODY_STREAM_BUFFER - s->len;
        size_t upto_end = BODY_STREAM_BUFFER - tail;
        size_t k = n < room ? n : room;
        if (k > upto_end) k = upto_end;
        memcpy(s->buf + tail, data, k);
        s->len += k;
        data += k;
        n -= k;
        if (s->len >= BODY_STREAM_BUFFER / 4) wake_reader(s);   /* enough for a few chunks */
    }
    bool ok = !atomic_load(&s->cancelled);
    pthread_mutex_unlock(&set->lock);
    return ok;
}

const atomic_bool *body_stream_cancel_flag(body_stream *s) { return &s->cancelled; }

static void *producer_main(void *arg) {
    body_stream *s = arg;
    bool ok = s->fn(s, s->arg);
    if (s->free_arg) s->free_arg(s->arg);
    body_streams *set = s->set;
    pthread_mutex_lock(&set->lock);
    s->done = true;
    s->failed = !ok;
    wake_reader(s);
    set->active--;
    pthread_cond_broadcast(&set->idle);
    unref(s);
    pthread_mutex_unlock(&set->lock);
    return NULL;
}

/* libmicrohttpd's content reader (HTTP thread): copies what is buffered, never waits. */
static ssize_t read_body(void *cls, uint64_t pos, char *out, size_t max) {
    (void)pos;
    body_stream *s = cls;
    body_streams *set = s->set;
    pthread_mutex_lock(&set->lock);
    ssize_t ret;
    if (s->len > 0) {
        size_t n = s->len < max ? s->len : max;
        size_t first = BODY_STREAM_BUFFER - s->head;
        if (first > n) first = n;
        memcpy(out, s->buf + s->head, first);
        memcpy(out + first, s->buf, n - first);
        s->head = (s->head + n) % BODY_STREAM_BUFFER;
        s->len -= n;
        pthread_cond_signal(&s->can_write);
        ret = (ssize_t)n;
    } else if (atomic_load(&s->cancelled) || (s->done && s->failed)) {
        ret = MHD_CONTENT_READER_END_WITH_ERROR;   /* no last chunk: the transfer is visibly broken */
    } else if (s->done) {
        ret = MHD_CONTENT_READER_END_OF_STREAM;
    } else {
        s->suspended = true;                       /* nothing yet: wait without busy polling */
        MHD_suspend_connection(s->conn);
        ret = 0;
    }
    pthread_mutex_unlock(&set->lock);
    return ret;
}

/* The response is freed (request done or connection closed): stop the producer. */
static void free_body(void *cls) {
    body_stream *s = cls;
    body_streams *set = s->set;
    pthread_mutex_lock(&set->lock);
    s->response_gone = true;
    atomic_store(&s->cancelled, true);
    pthread_cond_signal(&s->can_write);
    unref(s);
    pthread_mutex_unlock(&set->lock);
}

struct MHD_Response *body_stream_start(body_streams *set, struct MHD_Connection *c, body_producer fn, void *arg,
                                       void (*free_arg)(void *)) {
    body_stream *s = calloc(1, sizeof *s);
    char *buf = s ? malloc(BODY_STREAM_BUFFER) : NULL;
    if (!s || !buf) {
        free(s);
        free(buf);
        if (free_arg) free_arg(arg);
        return NULL;
    }
    *s = (body_stream){.set = set, .buf = buf, .refs = 2, .conn = c, .fn = fn, .arg = arg, .free_arg = free_arg};
    atomic_init(&s->cancelled, false);
    pthread_cond_init(&s->can_write, NULL);
    pthread_mutex_lock(&set->lock);
    bool room = set->active < set->max;
    if (room) {
        set->active++;
        s->next = set->head;
        if (set->head) set->head->prev = s;
        set->head = s;
    }
    pthread_mutex_unlock(&set->lock);
    if (!room) goto fail;
    struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 32 * 1024, read_body, s, free_body);
    if (!r) {
        pthread_mutex_lock(&set->lock);
        set->active--;
        s->refs = 1;
        unref(s);
        pthread_mutex_unlock(&set->lock);
        if (free_arg) free_arg(arg);
        return NULL;
    }
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&at, 256 * 1024);
    pthread_t th;
    int rc = pthread_create(&th, &at, producer_main, s);
    pthread_attr_destroy(&at);
    if (rc != 0) {                                  /* the body ends at once, broken off */
        pthread_mutex_lock(&set->lock);
        s->done = s->failed = true;
        set->active--;
        unref(s);                                   /* the producer's reference */
        pthread_mutex_unlock(&set->lock);
        if (free_arg) free_arg(arg);
    }
    return r;
fail:
    pthread_cond_destroy(&s->can_write);
    free(s->buf);
    free(s);
    if (free_arg) free_arg(arg);
    return NULL;
}

void body_streams_stop(body_streams *set, double wait_s) {
    struct timespec end;
    clock_gettime(CLOCK_REALTIME, &end);
    end.tv_sec += (time_t)wait_s;
    pthread_mutex_lock(&set->lock);
    for (body_stream *s = set->head; s; s = s->next) {
        atomic_store(&s->cancelled, true);
        pthread_cond_signal(&s->can_write);
        wake_reader(s);                             /* its content reader ends the transfer */
    }
    while (set->active > 0)
        if (pthread_cond_timedwait(&set->idle, &set->lock, &end) != 0) break;
    pthread_mutex_unlock(&set->lock);
}

void body_streams_free(body_streams *set) {
    if (!set) return;
    pthread_mutex_lock(&set->lock);
    bool busy = set->active > 0 || set->head;
    pthread_mutex_unlock(&set->lock);
    if (busy) return;                               /* a producer outlived body_streams_stop: leave it its set */
    pthread_cond_destroy(&set->idle);
    pthread_mutex_destroy(&set->lock);
    free(set);
}
