/* bare_server: the ceiling for bench/load.sh. A minimal libmicrohttpd server in goblind's
 * threading mode (one internal epoll thread) that answers every GET with the same bytes
 * from memory: what this machine can serve at best, with wrk sharing it.
 * usage: bare_server PORT BODY_FILE   (PORT 0: any free port; prints "ready PORT") */
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char *body;
static size_t body_len;

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **con_cls) {
    (void)cls; (void)url; (void)method; (void)version; (void)upload;
    static int first_call_marker;
    if (!*con_cls) { *con_cls = &first_call_marker; return MHD_YES; }   /* answer from the next call (keep-alive) */
    if (*upload_size) { *upload_size = 0; return MHD_YES; }
    struct MHD_Response *r = MHD_create_response_from_buffer(body_len, body, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(r, "Content-Type", "application/json");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "ETag", "\"1-complete\"");
    enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: bare_server PORT BODY_FILE\n"); return 2; }
    FILE *f = fopen(argv[2], "rb");
    if (!f) { perror(argv[2]); return 1; }
    body = malloc(1 << 20);
    body_len = fread(body, 1, 1 << 20, f);
    fclose(f);
    struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, (uint16_t)atoi(argv[1]),
                                            NULL, NULL, answer, NULL, MHD_OPTION_CONNECTION_LIMIT, 1024u,
                                            MHD_OPTION_CONNECTION_TIMEOUT, 30u, MHD_OPTION_END);
    if (!d) { fprintf(stderr, "cannot listen\n"); return 1; }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    printf("ready %u\n", info ? (unsigned)info->port : (unsigned)atoi(argv[1]));
    fflush(stdout);
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGTERM);
    sigaddset(&s, SIGINT);
    sigprocmask(SIG_BLOCK, &s, NULL);
    int sig;
    sigwait(&s, &sig);
    MHD_stop_daemon(d);
    free(body);
    return 0;
}
