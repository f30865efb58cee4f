/* json_text: jansson tree -> compact JSON text with shortest round-trip numbers. */
#include "api/json_text.h"

#include <stdlib.h>

#include "base/json_writer.h"

static void write_value(jw_out *j, const json_t *v) {
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        const char *key;
        json_t *item;
        jw_object_open(j);
        json_object_foreach((json_t *)v, key, item) {
            jw_key(j, key);
            write_value(j, item);
        }
        jw_object_close(j);
        break;
    }
    case JSON_ARRAY: {
        size_t i;
        json_t *item;
        jw_array_open(j);
        json_array_foreach(v, i, item) write_value(j, item);
        jw_array_close(j);
        break;
    }
    case JSON_STRING: jw_string_n(j, json_string_value(v), json_string_length(v)); break;
    case JSON_INTEGER: jw_int(j, (int64_t)json_integer_value(v)); break;
    case JSON_REAL: jw_number(j, json_real_value(v)); break;
    case JSON_TRUE: jw_bool(j, true); break;
    case JSON_FALSE: jw_bool(j, false); break;
    default: jw_null(j); break;
    }
}

char *json_text(const json_t *v, size_t *len) {
    strbuf out = {0};
    jw_out j;
    jw_begin(&j, &out, 0);
    write_value(&j, v);
    if (!strbuf_terminate(&out)) {
        strbuf_free(&out);
        return NULL;
    }
    if (len) *len = out.len;
    return out.data;
}
