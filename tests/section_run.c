/* section_run: the section runner and record builders the timeline and classes unit tests
 * share (see section_run.h). */
#include "tests/section_run.h"

#include <check.h>
#include <string.h>

const analysis_config SR_CFG = {.kernel_wait_threshold_ns = 50, .short_kernel_ns = 100, .run_dir = "."};

bool sr_chosen_last = true;
bool sr_rank_per_source = false;

const char *const SR_KERNEL_NAMES[5] = {"Cijk_Alik_Bljk_BBS", "ncclDevKernel_AllReduce_Sum_bf16", "__amd_rocclr_copyBuffer",
                                        "void at::native::vectorized_elementwise_kernel<4>", "flash_fwd_kernel"};

static uint64_t rng_state = 12345;

unsigned sr_rnd(unsigned n) {
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((rng_state >> 33) % n);
}

void *sr_run(const section_analysis *an, const record *recs, size_t n, size_t n_sources,
             const section_results *earlier) {
    diag_list diag;
    diag_init(&diag);
    void *run = an->open(&SR_CFG, &diag);
    ck_assert_ptr_nonnull(run);
    for (size_t s = 0; s < n_sources; s++) {
        source_ref ref = {.index = s, .path = "x", .format = "test", .rank = sr_rank_per_source ? (int)s : -1,
                          .kernels_chosen = s + 1 < n_sources || sr_chosen_last};
        void *src = an->open_source(run, &ref);
        for (size_t i = s * n / n_sources; i < (s + 1) * n / n_sources; i++)
            if (an->wants & REC_BIT(recs[i].type)) ck_assert(an->consume(src, &recs[i]));
        ck_assert(an->end_source(run, src));
    }
    section_results none = {0};
    ck_assert(an->finish(run, earlier ? earlier : &none));
    diag_free(&diag);
    return run;
}

double sr_num(const section_analysis *an, void *run, const char *path) {
    double v = -1;
    ck_assert_msg(an->number(run, path, &v), "no number %s", path);
    return v;
}

record sr_op(record_type t, const char *name, int64_t dev, int64_t stream, i128 s, i128 e) {
    record r = {.type = t, .has = RF_DEVICE | RF_STREAM | RF_START | RF_END, .device = dev, .stream = stream,
                .start_ns = s, .end_ns = e, .name = name, .name_len = name ? strlen(name) : 0};
    return r;
}
