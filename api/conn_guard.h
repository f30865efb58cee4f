/* conn_guard: keeps slow or idle clients from holding libmicrohttpd's connection slots.
 *
 * libmicrohttpd's connection timeout is an idle timeout: a client that sends one header byte
 * every few seconds (slowloris) resets it forever, and a thousand such clients hold every slot.
 * conn_guard tracks each connection (MHD_OPTION_NOTIFY_CONNECTION) and, from a periodic sweep,
 * cuts those that have not completed a request's headers within a deadline of opening or of
 * their previous answer (shutdown(2) on the socket; libmicrohttpd then closes it).
 *
 * It also keeps a few slots for health checks: libmicrohttpd is given max_connections + reserve
 * slots; a connection opened while max_connections are already open is "reserved", gets a
 * short deadline, and may only ask for /healthz or /readyz (anything else is answered 503).
 * Thread-safe: notifications come from the HTTP thread, the sweep from the loop thread. The
 * socket is only touched under the lock and before libmicrohttpd's close notification, which
 * precedes its close(2), so a sweep never reaches a reused descriptor. */
#ifndef GOBLIN_CONN_GUARD_H
#define GOBLIN_CONN_GUARD_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct conn_guard conn_guard;

/* header_timeout_s: the deadline for a request's headers on an ordinary slot;
 * reserve_timeout_s on a reserved one. */
conn_guard *conn_guard_new(int max_connections, double header_timeout_s, double reserve_timeout_s);
void conn_guard_free(conn_guard *g);
/* The MHD_OPTION_NOTIFY_CONNECTION callback (cls = the guard). */
void conn_guard_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                       enum MHD_ConnectionNotificationCode code);
/* A request's headers are complete on c: its deadline stops. true when c holds a reserved slot. */
bool conn_guard_request_begins(struct MHD_Connection *c);
/* The request on c is answered: the deadline for the next request's headers starts now. */
void conn_guard_request_ends(conn_guard *g, struct MHD_Connection *c);
/* Cuts every connection past its deadline; returns how many. */
int conn_guard_sweep(conn_guard *g);

#endif
