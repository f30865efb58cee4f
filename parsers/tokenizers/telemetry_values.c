/* telemetry_values: numbers with units and timestamps in telemetry CSV cells. */
#include "parsers/tokenizers/telemetry_values.h"

#include <assert.h>
#include <math.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/py_number.h"

static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
static bool is_unit_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '%' || c == '[' || c == ']';
}

/* Whether w[0..n) is one of the blank-separated words of `units`, ignoring case. */
static bool unit_listed(const char *units, const char *w, size_t n) {
    for (const char *u = units; *u;) {
        while (*u == ' ') u++;
        size_t k = strcspn(u, " ");
        if (k == n && !strncasecmp(u, w, n)) return true;
        u += k;
    }
    return false;
}

bool telemetry_number(const char *s, size_t n, const char *units, double *out) {
    assert(units);
    if (!s) return false;
    while (n && is_blank(*s)) s++, n--;
    while (n && is_blank(s[n - 1])) n--;
    size_t k = n;
    while (k && is_unit_char(s[k - 1])) k--;
    if (k && k < n) {                    /* "841 MiB", "65.0W": only after a digit or a blank */
        if (!unit_listed(units, s + k, n - k)) return false;
        n = k;
        while (n && is_blank(s[n - 1])) n--;
    }
    double v;
    if (!n || !py_number(s, n, &v) || !isfinite(v)) return false;
    *out = v;
    return true;
}

/* Reads exactly `w` digits at *p (advancing); false otherwise. */
static bool digits(const char **p, const char *end, int w, int *out) {
    int v = 0;
    for (int i = 0; i < w; i++, (*p)++) {
        if (*p >= end || **p < '0' || **p > '9') return false;
        v = v * 10 + (**p - '0');
    }
    *out = v;
    return true;
}

/* ".ddd" (up to 9 digits exact, more ignored) -> nanoseconds. */
static bool fraction(const char **p, const char *end, i128 *ns) {
    *ns = 0;
    if (*p >= end || **p != '.') return true;
    (*p)++;
    int k = 0;
    i128 v = 0;
    if (*p >= end || **p < '0' || **p > '9') return false;
    for (; *p < end && **p >= '0' && **p <= '9'; (*p)++, k++)
        if (k < 9) v = v * 10 + (**p - '0');
    for (; k < 9; k++) v *= 10;
    *ns = v;
    return true;
}

bool telemetry_time_ns(const char *s, size_t n, i128 *out) {
    if (!s) return false;
    while (n && is_blank(*s)) s++, n--;
    while (n && is_blank(s[n - 1])) n--;
    const char *p = s, *end = s + n;
    if (!n) return false;
    /* epoch seconds: digits only (with an optional fraction) */
    size_t d = 0;
    while (d < n && s[d] >= '0' && s[d] <= '9') d++;
    if (d >= 9 && d <= 12 && (d == n || s[d] == '.')) {
        i128 sec = 0;
        for (size_t i = 0; i < d; i++) sec = sec * 10 + (s[i] - '0');
        p = s + d;
        i128 frac;
        if (!fraction(&p, end, &frac) || p != end) return false;
        *out = sec * 1000000000 + frac;
        return true;
    }
    int Y, M, D, h, m, sec;
    if (!digits(&p, end, 4, &Y) || p >= end || (*p != '/' && *p != '-')) return false;
    char sep = *p++;
    if (!digits(&p, end, 2, &M) || p >= end || *p++ != sep || !digits(&p, end, 2, &D)) return false;
    if (p >= end || (*p != ' ' && *p != 'T')) return false;
    p++;
    if (!digits(&p, end, 2, &h) || p >= end || *p++ != ':' || !digits(&p, end, 2, &m) || p >= end || *p++ != ':' ||
        !digits(&p, end, 2, &sec))
        return false;
    i128 frac;
    if (!fraction(&p, end, &frac)) return false;
    int offset_s = 0;                  /* a UTC offset: Z, +HH:MM, -HH:MM, +HHMM or +HH */
    if (p < end && *p == 'Z') p++;
    else if (p < end && (*p == '+' || *p == '-')) {
        int sign = *p++ == '-' ? -1 : 1, oh, om = 0;
        if (!digits(&p, end, 2, &oh)) return false;
        bool colon = p < end && *p == ':';
        if (colon) p++;
        if ((colon || p < end) && !digits(&p, end, 2, &om)) return false;
        if (oh > 23 || om > 59) return false;
        offset_s = sign * (oh * 3600 + om * 60);
    }
    static const int MONTH_DAYS[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (Y % 4 == 0 && Y % 100 != 0) || Y % 400 == 0;
    if (p != end || M < 1 || M > 12 || D < 1 || D > MONTH_DAYS[M - 1] || (M == 2 && D == 29 && !leap) || h > 23 ||
        m > 59 || sec > 60 || (sec == 60 && (h != 23 || m != 59)))
        return false;                  /* "2025-02-31" is no date (timegm would make it March 3); :60 only as
                                        * a leap second, 23:59:60 */
    struct tm tm = {.tm_year = Y - 1900, .tm_mon = M - 1, .tm_mday = D, .tm_hour = h, .tm_min = m, .tm_sec = sec};
    time_t t = timegm(&tm);
    if (t == (time_t)-1 && !(Y == 1969 && M == 12 && D == 31)) return false;
    *out = ((i128)t - offset_s) * 1000000000 + frac;   /* local time minus its offset: UTC */
    return true;
}

bool telemetry_mib_to_bytes(double mib, unsigned long long *out) {
    if (!(mib >= 0) || mib > 1.0e12) return false;
    *out = (unsigned long long)llround(mib * 1048576.0);
    return true;
}
