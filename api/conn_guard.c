/* conn_guard: a list of open connections behind one mutex (see conn_guard.h). */
#include "api/conn_guard.h"
#include "base/clock.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

typedef struct slot {
    struct slot *prev, *next;
    conn_guard *g;
    int fd;
    bool reserved;               /* opened while max_connections were open: health checks only */
    bool in_request;             /* headers complete, not yet answered: no deadline */
    bool cut;                    /* shutdown(2) already done */
    double waiting_since;        /* monotonic seconds: opened, or previous request answered */
} slot;

struct conn_guard {
    pthread_mutex_t lock;
    slot *head;
    int open, max;
    double header_timeout_s, reserve_timeout_s;
};

conn_guard *conn_guard_new(int max_connections, double header_timeout_s, double reserve_timeout_s) {
    conn_guard *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    pthread_mutex_init(&g->lock, NULL);
    g->max = max_connections;
    g->header_timeout_s = header_timeout_s;
    g->reserve_timeout_s = reserve_timeout_s;
    return g;
}

void conn_guard_free(conn_guard *g) {
    if (!g) return;
    for (slot *s = g->head, *nx; s; s = nx) { nx = s->next; free(s); }   /* only after MHD stopped */
    pthread_mutex_destroy(&g->lock);
    free(g);
}

void conn_guard_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                       enum MHD_ConnectionNotificationCode code) {
    conn_guard *g = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        slot *s = calloc(1, sizeof *s);
        *socket_context = s;
        if (!s) return;
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        s->g = g;
        s->fd = ci ? ci->connect_fd : -1;
        s->waiting_since = clk_mono_s();
        pthread_mutex_lock(&g->lock);
        s->reserved = g->open >= g->max;
        g->open++;
        s->next = g->head;
        if (g->head) g->head->prev = s;
        g->head = s;
        pthread_mutex_unlock(&g->lock);
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        slot *s = *socket_context;
        if (!s) return;
        pthread_mutex_lock(&g->lock);             /* a sweep holding the lock finishes its shutdown first */
        if (s->prev) s->prev->next = s->next;
        else g->head = s->next;
        if (s->next) s->next->prev = s->prev;
        g->open--;
        pthread_mutex_unlock(&g->lock);
        free(s);
        *socket_context = NULL;
    }
}

static slot *slot_of(struct MHD_Connection *c) {
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

bool conn_guard_request_begins(struct MHD_Connection *c) {
    slot *s = slot_of(c);
    if (!s) return false;
    pthread_mutex_lock(&s->g->lock);
    s->in_request = true;
    bool reserved = s->reserved;
    pthread_mutex_unlock(&s->g->lock);
    return reserved;
}

void conn_guard_request_ends(conn_guard *g, struct MHD_Connection *c) {
    slot *s = slot_of(c);
    if (!s) return;
    pthread_mutex_lock(&g->lock);
    s->in_request = false;
    s->waiting_since = clk_mono_s();
    pthread_mutex_unlock(&g->lock);
}

int conn_guard_sweep(conn_guard *g) {
    double now = clk_mono_s();
    int n = 0;
    pthread_mutex_lock(&g->lock);
    for (slot *s = g->head; s; s = s->next) {
        if (s->in_request || s->cut || s->fd < 0) continue;
        double limit = s->reserved ? g->reserve_timeout_s : g->header_timeout_s;
        if (now - s->waiting_since < limit) continue;
        shutdown(s->fd, SHUT_RDWR);               /* libmicrohttpd sees the end and closes it */
        s->cut = true;
        n++;
    }
    pthread_mutex_unlock(&g->lock);
    return n;
}
