/* body_stream: large response bodies produced on a thread of their own and sent in chunks.
 *
 * A body such as /kernels?limit=100000 of a run with 300,000 kernel names is tens of megabytes.
 * Built in memory it cost ~150 MB of RSS per request and held the HTTP thread for seconds. Here
 * a producer thread writes the body into a fixed ring buffer (BODY_STREAM_BUFFER bytes) and
 * blocks while it is full; libmicrohttpd's content reader only copies out of that buffer, and
 * when it is empty suspends the connection until the producer has more, so the HTTP thread
 * never waits for a query or a slow client. At most max_streams run at once (the caller answers
 * 503 beyond), so the bytes buffered by all streams together are bounded by
 * max_streams * BODY_STREAM_BUFFER. A client that stops reading keeps its producer blocked until
 * libmicrohttpd's connection timeout closes the connection, which cancels the producer.
 * A failure part way ends the chunked body without its last chunk: the client sees a broken
 * transfer, never a short body that parses. */
#ifndef GOBLIN_BODY_STREAM_H
#define GOBLIN_BODY_STREAM_H

#include <microhttpd.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#define BODY_STREAM_BUFFER (256u * 1024u)

typedef struct body_streams body_streams;
typedef struct body_stream body_stream;

/* Produces the body with body_stream_write(); returns false on a failure (the transfer is
 * then broken off). Runs on the stream's own thread. */
typedef bool (*body_producer)(body_stream *s, void *arg);

/* An empty set admitting at most max_streams streams at once; NULL on OOM. */
body_streams *body_streams_new(int max_streams);
/* Cancels every stream and waits (up to wait_s) for their producers to end. Before
 * MHD_stop_daemon: it resumes connections suspended on an empty buffer. */
void body_streams_stop(body_streams *set, double wait_s);
void body_streams_free(body_streams *set);

/* A response whose body fn(arg) produces on a new thread; free_arg(arg) is called when the
 * producer is done. NULL when max_streams are already running or a thread cannot start (then
 * free_arg has been called). */
struct MHD_Response *body_stream_start(body_streams *set, struct MHD_Connection *c, body_producer fn, void *arg,
                                       void (*free_arg)(void *));
/* Appends bytes, waiting while the buffer is full; false once the stream is cancelled (the
 * client left or the server stops): the producer should return. */
bool body_stream_write(body_stream *s, const char *data, size_t n);
/* The flag set when the stream is cancelled, for producers that poll (kernel_cursor). */
const atomic_bool *body_stream_cancel_flag(body_stream *s);

#endif
