/* Random records of every type and field mix into the five torch-trace sections (steps, ops,
 * phases, layers, ranks) over one to three sources and split pieces: every render is valid
 * JSON, steps' parts still sum to their walls, ops' kernel counts add up; run under ASan and
 * UBSan in the sanitizer build. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/section_drive.h"

static const char *const NAMES[] = {
    "ProfilerStep#1", "ProfilerStep#2", "Cijk_Alik_Bljk", "fmha_fwd_kernel", "ncclDevKernel_AllReduce",
    "enumerate(DataLoader)#_It.__next__", "nccl:all_reduce", "aten::mm", "train.py(3): main",
    "execute_context_1(12)_generation_0(0)", "execute_2_context_0(sq0sk0)_generation_2(sq2sk9)",
    "execute_context_x(", "", "hipLaunchKernel", NULL};
static const char *const CATS[] = {"cpu_op", "python_function", "gpu_user_annotation", "user_annotation", NULL};

static record random_record(void) {
    static const record_type TYPES[] = {REC_KERNEL_DISPATCH, REC_MEMORY_COPY, REC_MEMSET, REC_API_CALL,
                                        REC_ANNOTATION,      REC_CPU_OP,      REC_METADATA};
    record r = {.type = TYPES[rand() % 7]};
    if (r.type == REC_METADATA) {
        static const char *const V[] = {"0", "1", "2", "x", "-3", "99999999999"};
        r.key = rand() % 2 ? "rank" : "world_size";
        r.value = V[rand() % 6];
        r.value_len = strlen(r.value);
        return r;
    }
    const char *n = NAMES[rand() % (sizeof NAMES / sizeof NAMES[0])];
    r.name = n, r.name_len = n ? strlen(n) : 0;
    const char *c = CATS[rand() % 5];
    r.category = c, r.category_len = c ? strlen(c) : 0;
    r.has = (unsigned)rand() & (RF_START | RF_END | RF_DURATION | RF_CORRELATION | RF_EXTERNAL | RF_PID_TID);
    r.start_ns = rand() % 5 ? rand() % 100000 : (i128)((uint64_t)rand() << 40);
    r.end_ns = r.start_ns + (rand() % 3 ? rand() % 5000 : -(rand() % 50));
    r.duration_ns = rand() % 5000;
    r.correlation_id = (uint64_t)(rand() % 50);
    r.external_id = (uint64_t)(rand() % 40);
    r.pid = 1, r.tid = rand() % 2;
    if (rand() % 4 == 0) r.args = "[[1,2]]", r.args_len = 7;
    return r;
}

static void check_steps_sums(json_t *j) {
    if (!json_is_object(j)) return;
    json_t *items = json_object_get(j, "items");
    for (size_t i = 0; i <= json_array_size(items); i++) {
        json_t *o = i < json_array_size(items) ? json_array_get(items, i) : json_object_get(j, "run");
        json_t *parts = json_object_get(o, "parts");
        const char *k;
        json_t *v;
        int64_t sum = 0;
        json_object_foreach(parts, k, v) sum += json_integer_value(v);
        ck_assert_int_eq(sum, json_integer_value(json_object_get(o, "wall_ns")));
    }
}

START_TEST(random_records) {
    static const char *const KEYS[] = {"steps", "ops", "phases", "layers", "ranks"};
    srand(777);
    for (int trial = 0; trial < 300; trial++) {
        for (size_t a = 0; a < 5; a++) {
            unsigned seed = (unsigned)(trial * 5 + (int)a);
            srand(seed);
            drive d;
            drive_open(&d, KEYS[a]);
            int nsrc = 1 + rand() % 3;
            for (int s = 0; s < nsrc; s++) {
                int pieces = 1 + rand() % 2;
                int rank = rand() % 3 - 1;
                for (int p = 0; p < pieces; p++) {
                    drive_source(&d, (size_t)s, rank, (unsigned)p);
                    int n = rand() % 60;
                    for (int i = 0; i < n; i++) {
                        record r = random_record();
                        drive_record(&d, &r);
                    }
                    drive_end_source(&d);
                }
            }
            json_t *j = drive_finish(&d);
            if (a == 0) check_steps_sums(j);
            if (a == 1 && json_is_object(j))
                ck_assert_int_eq(json_integer_value(json_object_get(j, "attributed_kernels")) +
                                     json_integer_value(json_object_get(j, "unattributed_kernels")),
                                 json_integer_value(json_object_get(j, "kernels")));
            double v;
            (void)d.an->number(d.run, "count", &v);
            if (d.an->render_md) {
                strbuf md = {0};
                d.an->render_md(d.run, &md);
                strbuf_free(&md);
            }
            json_decref(j);
            drive_close(&d);
        }
    }
}
END_TEST

Suite *torch_sections_random_suite(void) {
    Suite *s = suite_create("torch_sections_random");
    TCase *tc = tcase_create("random");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, random_records);
    suite_add_tcase(s, tc);
    return s;
}
