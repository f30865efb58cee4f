/* check_deflated_entry: api/deflated_entry.c against libzip's own reader. An archive written
 * from deflated_entry sources reads back (zip_fopen, which checks each entry's CRC-32) as the
 * files' bytes: an empty file, a short one, and 300 KB of text and random bytes (several
 * 64 KiB reads, deflate output larger than one libzip read); the entries are deflated; and a
 * file that changes between the source's creation and zip_close makes zip_close fail with
 * ZIP_ER_CHANGED rather than write an entry whose CRC-32 or size is not its data's; a read
 * error (a directory in the file's place) fails the source or the write with ZIP_ER_READ. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include "api/deflated_entry.h"
#include "tests/test_util.h"

/* Writes n bytes of data to dir/name (tu_write); the path (caller frees). */
static char *write_file(const char *dir, const char *name, const unsigned char *data, size_t n) {
    tu_write(dir, name, data, n);
    char *path = NULL;
    ck_assert(asprintf(&path, "%s/%s", dir, name) > 0);
    return path;
}

/* Entry `name` of the archive at zip_path, read whole through libzip (CRC-checked). */
static unsigned char *read_entry(const char *zip_path, const char *name, size_t *n) {
    int err = 0;
    zip_t *z = zip_open(zip_path, ZIP_RDONLY | ZIP_CHECKCONS, &err);
    ck_assert_msg(z != NULL, "zip_open: %d", err);
    zip_stat_t st;
    ck_assert_int_eq(zip_stat(z, name, 0, &st), 0);
    ck_assert_uint_eq(st.comp_method, ZIP_CM_DEFLATE);
    zip_file_t *f = zip_fopen(z, name, 0);
    ck_assert_ptr_nonnull(f);
    unsigned char *buf = malloc(st.size + 1);
    ck_assert_ptr_nonnull(buf);
    zip_int64_t got = zip_fread(f, buf, st.size + 1);      /* one more: the end is checked too */
    ck_assert_msg(got == (zip_int64_t)st.size, "zip_fread: %lld of %llu (%s)", (long long)got,
                  (unsigned long long)st.size, zip_file_strerror(f));
    ck_assert_int_eq(zip_fclose(f), 0);
    zip_discard(z);
    *n = (size_t)got;
    return buf;
}

START_TEST(entries_read_back_as_the_files) {
    char *dir = tu_tempdir();
    size_t big = 300000;
    unsigned char *data = malloc(big);
    ck_assert_ptr_nonnull(data);
    srand(7);
    for (size_t i = 0; i < big; i++)           /* text, then random bytes (incompressible) */
        data[i] = i < big / 2 ? (unsigned char)("op,type,dur\n0123456789"[i % 22]) : (unsigned char)rand();
    struct { const char *name; size_t n; } files[] = {{"empty.csv", 0}, {"short.csv", 5}, {"big.csv", 300000}};
    char *zip_path = NULL;
    ck_assert(asprintf(&zip_path, "%s/out.zip", dir) > 0);
    int err = 0;
    zip_t *z = zip_open(zip_path, ZIP_CREATE | ZIP_TRUNCATE, &err);
    ck_assert_ptr_nonnull(z);
    for (size_t i = 0; i < 3; i++) {
        char *path = write_file(dir, files[i].name, data, files[i].n);
        zip_source_t *src = deflated_entry_source(z, path);
        ck_assert_ptr_nonnull(src);
        ck_assert_int_ge(zip_file_add(z, files[i].name, src, ZIP_FL_ENC_UTF_8), 0);
        free(path);
    }
    ck_assert_msg(zip_close(z) == 0, "zip_close: %s", zip_strerror(z));
    for (size_t i = 0; i < 3; i++) {
        size_t n;
        unsigned char *back = read_entry(zip_path, files[i].name, &n);
        ck_assert_uint_eq(n, files[i].n);
        ck_assert(n == 0 || memcmp(back, data, n) == 0);
        free(back);
    }
    ck_assert_ptr_null(deflated_entry_source(z = zip_open(zip_path, 0, &err), "/nonexistent/x.csv"));
    zip_discard(z);
    free(zip_path);
    free(data);
    tu_rmrf(dir);
    free(dir);
}
END_TEST

/* A new archive dir/out.zip holding one entry, a.csv, from the deflated_entry source of path
 * (its size and CRC-32 taken now). */
static zip_t *archive_of(const char *dir, const char *path) {
    char *zip_path = NULL;
    ck_assert(asprintf(&zip_path, "%s/out.zip", dir) > 0);
    int err = 0;
    zip_t *z = zip_open(zip_path, ZIP_CREATE | ZIP_TRUNCATE, &err);
    free(zip_path);
    ck_assert_ptr_nonnull(z);
    zip_source_t *src = deflated_entry_source(z, path);
    ck_assert_ptr_nonnull(src);
    ck_assert_int_ge(zip_file_add(z, "a.csv", src, 0), 0);
    return z;
}

START_TEST(a_file_changed_before_the_write_fails_it) {
    char *dir = tu_tempdir();
    char *path = write_file(dir, "a.csv", (const unsigned char *)"a,b\n1,2\n", 8);
    zip_t *z = archive_of(dir, path);
    free(write_file(dir, "a.csv", (const unsigned char *)"a,b\n1,3\n", 8));   /* same size, other bytes */
    ck_assert_int_eq(zip_close(z), -1);
    ck_assert_int_eq(zip_error_code_zip(zip_get_error(z)), ZIP_ER_CHANGED);
    zip_discard(z);
    free(path);
    tu_rmrf(dir);
    free(dir);
}
END_TEST

/* A read that fails: a directory where the file was (open succeeds, read gives EISDIR).
 * Measured a directory gives no source; a file replaced by a directory after it was measured
 * makes zip_close fail with ZIP_ER_READ and that errno, every later READ failing too. */
START_TEST(a_read_error_fails_the_write) {
    char *dir = tu_tempdir();
    char *path = write_file(dir, "a.csv", (const unsigned char *)"a,b\n1,2\n", 8);
    char *sub = NULL;
    ck_assert(asprintf(&sub, "%s/sub", dir) > 0);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    zip_t *z = archive_of(dir, path);
    ck_assert_ptr_null(deflated_entry_source(z, sub));          /* the first read fails */
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(rename(sub, path), 0);                     /* the second read fails */
    ck_assert_int_eq(zip_close(z), -1);
    ck_assert_int_eq(zip_error_code_zip(zip_get_error(z)), ZIP_ER_READ);
    ck_assert_int_eq(zip_error_code_system(zip_get_error(z)), EISDIR);
    zip_discard(z);
    free(path);
    free(sub);
    tu_rmrf(dir);
    free(dir);
}
END_TEST

int main(void) {
    Suite *s = suite_create("deflated_entry");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, entries_read_back_as_the_files);
    tcase_add_test(tc, a_file_changed_before_the_write_fails_it);
    tcase_add_test(tc, a_read_error_fails_the_write);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
