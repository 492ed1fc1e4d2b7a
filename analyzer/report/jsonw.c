/* The one small JSON writer (jsonw.h). */
#include "jsonw.h"

#include <math.h>
#include <string.h>

#include "escape.h"

jw jw_on(FILE *out)
{
    jw w = {.out = out};
    return w;
}

/* A comma before every member or item of the level open but its first. */
static void separate(jw *w)
{
    if (w->any[w->depth])
        fputs(", ", w->out);
    w->any[w->depth] = 1;
}

void jw_key(jw *w, const char *key)
{
    separate(w);
    fprintf(w->out, "\"%s\": ", key);
}

void jw_item(jw *w)
{
    separate(w);
}

void jw_item_line(jw *w, const char *line)
{
    if (w->any[w->depth])
        fputc(',', w->out);
    w->any[w->depth] = 1;
    fputs(line, w->out);
}

void jw_begin(jw *w, char open)
{
    fputc(open, w->out);
    if (w->depth + 1 < JW_DEPTH)
        w->depth++;
    w->any[w->depth] = 0;
}

void jw_end(jw *w, char close)
{
    fputc(close, w->out);
    if (w->depth > 0)
        w->depth--;
}

void jw_raw(jw *w, const char *s)
{
    fputs(s, w->out);
}

void jw_int(jw *w, int has, int64_t v)
{
    if (has)
        fprintf(w->out, "%lld", (long long)v);
    else
        fputs("null", w->out);
}

void jw_num(jw *w, int has, double d)
{
    if (has)
        esc_double(w->out, d);
    else
        fputs("null", w->out);
}

void jw_hundredths(jw *w, int has, int64_t h)
{
    char b[ESC_HUNDREDTHS];
    fputs(has ? esc_hundredths(b, h) : "null", w->out);
}

void jw_two(jw *w, double d)
{
    esc_double(w->out, round(d * 100) / 100);
}

void jw_str(jw *w, const char *s, size_t n)
{
    if (s)
        esc_json_string(w->out, s, n);
    else
        fputs("null", w->out);
}

void jw_word(jw *w, const char *word)
{
    jw_str(w, word, word ? strlen(word) : 0);
}

void jw_bool(jw *w, int v)
{
    fputs(v ? "true" : "false", w->out);
}

void jw_null(jw *w)
{
    fputs("null", w->out);
}

void jw_int_member(jw *w, const char *key, int has, int64_t v)
{
    jw_key(w, key);
    jw_int(w, has, v);
}

void jw_num_member(jw *w, const char *key, int has, double d)
{
    jw_key(w, key);
    jw_num(w, has, d);
}

void jw_hundredths_member(jw *w, const char *key, int has, int64_t h)
{
    jw_key(w, key);
    jw_hundredths(w, has, h);
}

void jw_bool_member(jw *w, const char *key, int v)
{
    jw_key(w, key);
    jw_bool(w, v);
}
