/* The one small JSON writer (jsonw.h). */
#include "jsonw.h"

#include <math.h>
#include <string.h>

#include "escape.h"

void jw_int(FILE *out, int has, int64_t v)
{
    if (has)
        fprintf(out, "%lld", (long long)v);
    else
        fputs("null", out);
}

void jw_num(FILE *out, int has, double d)
{
    if (has)
        esc_double(out, d);
    else
        fputs("null", out);
}

void jw_hundredths(FILE *out, int has, int64_t h)
{
    char b[ESC_HUNDREDTHS];
    fputs(has ? esc_hundredths(b, h) : "null", out);
}

void jw_two(FILE *out, double d)
{
    esc_double(out, round(d * 100) / 100);
}

void jw_str(FILE *out, const char *s, size_t n)
{
    if (s)
        esc_json_string(out, s, n);
    else
        fputs("null", out);
}

void jw_word(FILE *out, const char *w)
{
    jw_str(out, w, w ? strlen(w) : 0);
}

void jw_key(FILE *out, const char *key, int *first)
{
    fprintf(out, *first ? "\"%s\": " : ", \"%s\": ", key);
    *first = 0;
}
