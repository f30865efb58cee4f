/* run_sidecar: a run directory's goblind.json (run_headline.h), so that any profiler's run can
 * declare what goblin_runner writes in its metadata: tokens per step, model FLOPs per token,
 * precision, steps, the GPU's peak TFLOPS, and free-form labels. A bad file or value is a
 * warning naming the key, and the key is ignored; it never fails the run. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/json_load.h"
#include "core/run_headline.h"

static const char *const PRECISIONS[] = {"fp16", "bf16", "fp32", "fp8", NULL};

/* slurp's *why when memory ran out (told apart by address: the ingest then fails). */
static const char SLURP_OUT_OF_MEMORY[] = "out of memory";

/* The file's bytes (at most RUN_SIDECAR_MAX_BYTES), NUL-terminated, or NULL with *why set
 * (NULL why: there is no file). Not followed when it is a symlink; a FIFO does not block. */
static char *slurp(const char *path, size_t *len, const char **why) {
    *why = NULL;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT) *why = errno == ELOOP ? "a symbolic link (not followed)" : strerror(errno);
        return NULL;
    }
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) *why = "not a regular file";
    else if (st.st_size > (off_t)RUN_SIDECAR_MAX_BYTES) *why = "larger than 64 KiB";
    else if (!(buf = malloc((size_t)st.st_size + 1))) *why = SLURP_OUT_OF_MEMORY;
    else {
        size_t n = 0;
        ssize_t r;
        while (n < (size_t)st.st_size && (r = read(fd, buf + n, (size_t)st.st_size - n)) > 0) n += (size_t)r;
        buf[n] = 0;
        *len = n;
    }
    close(fd);
    return buf;
}

/* A positive finite number at key, else a warning and false. */
static bool positive(json_t *v, const char *key, double *out, diag_list *w) {
    double x = json_is_number(v) ? json_number_value(v) : NAN;
    if (!(x > 0) || !isfinite(x)) {
        diag_add(w, RUN_SIDECAR_NAME ": key '%s' must be a positive number; ignored", key);
        return false;
    }
    *out = x;
    return true;
}

void run_sidecar_read(const char *run_dir, run_sidecar *sc, diag_list *w) {
    memset(sc, 0, sizeof *sc);
    size_t dl = strlen(run_dir), len = 0;
    char *path = malloc(dl + sizeof "/" RUN_SIDECAR_NAME);
    if (!path) {                           /* the ingest fails as an allocation failure */
        diag_oom(w, RUN_SIDECAR_NAME ": out of memory");
        return;
    }
    memcpy(path, run_dir, dl);
    memcpy(path + dl, "/" RUN_SIDECAR_NAME, sizeof "/" RUN_SIDECAR_NAME);
    const char *why;
    char *text = slurp(path, &len, &why);
    free(path);
    if (!text) {
        if (why == SLURP_OUT_OF_MEMORY) diag_oom(w, RUN_SIDECAR_NAME ": out of memory");
        else if (why) diag_add(w, RUN_SIDECAR_NAME ": not read: %s; ignored", why);
        return;
    }
    sc->present = true;
    json_error_t err;
    bool oom = false;
    json_t *doc = json_load_checked(text, len, JSON_REJECT_DUPLICATES, &err, &oom);
    free(text);
    if (oom) {
        diag_oom(w, RUN_SIDECAR_NAME ": out of memory");
        return;
    }
    if (!json_is_object(doc)) {
        if (doc) diag_add(w, RUN_SIDECAR_NAME ": not a JSON object; ignored");
        else diag_add(w, RUN_SIDECAR_NAME ": not JSON (line %d, column %d: %s); ignored", err.line, err.column, err.text);
        json_decref(doc);
        return;
    }
    const char *key;
    json_t *v;
    json_object_foreach(doc, key, v) {
        if (!strcmp(key, "tokens_per_step")) sc->has_tokens_per_step = positive(v, key, &sc->tokens_per_step, w);
        else if (!strcmp(key, "model_flops_per_token")) sc->has_flops_per_token = positive(v, key, &sc->flops_per_token, w);
        else if (!strcmp(key, "peak_tflops")) sc->has_peak_tflops = positive(v, key, &sc->peak_tflops, w);
        else if (!strcmp(key, "steps")) {
            if (json_is_integer(v) && json_integer_value(v) >= 1) sc->steps = json_integer_value(v), sc->has_steps = true;
            else diag_add(w, RUN_SIDECAR_NAME ": key 'steps' must be an integer of at least 1; ignored");
        } else if (!strcmp(key, "precision")) {
            const char *p = json_string_value(v);
            for (int i = 0; p && PRECISIONS[i]; i++)
                if (!strcmp(p, PRECISIONS[i])) sc->precision = PRECISIONS[i];
            if (!sc->precision) diag_add(w, RUN_SIDECAR_NAME ": key 'precision' must be fp16, bf16, fp32 or fp8; ignored");
        } else if (!strcmp(key, "labels")) {
            bool ok = json_is_object(v);
            const char *lk;
            json_t *lv;
            json_object_foreach(v, lk, lv) ok &= json_is_string(lv) || json_is_number(lv) || json_is_boolean(lv);
            if (!ok) diag_add(w, RUN_SIDECAR_NAME ": key 'labels' must be an object of strings, numbers or booleans; ignored");
            else if (!(sc->labels_json = json_dumps_checked(v, JSON_COMPACT | JSON_SORT_KEYS)))
                diag_oom(w, RUN_SIDECAR_NAME ": out of memory");
            /* kept as a label either way, but only a string of 1..128 bytes names the series;
             * otherwise the run's setup fingerprint does, which the user should hear about */
            json_t *series = ok ? json_object_get(v, "series") : NULL;
            size_t sl = json_is_string(series) ? json_string_length(series) : 0;
            if (series && (sl == 0 || sl > RUN_SIDECAR_SERIES_MAX))
                diag_add(w, RUN_SIDECAR_NAME ": key 'labels.series' must be a string of 1 to %d bytes to name the run's series; "
                         "the run's setup fingerprint names it instead", RUN_SIDECAR_SERIES_MAX);
        } else {
            diag_add(w, RUN_SIDECAR_NAME ": unknown key '%.64s'; ignored", key);
        }
    }
    json_decref(doc);
}

void run_sidecar_free(run_sidecar *sc) {
    free(sc->labels_json);
    memset(sc, 0, sizeof *sc);
}
