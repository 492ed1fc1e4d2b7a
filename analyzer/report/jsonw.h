/*
 * jsonw: the one small JSON writer of the reports (the report, the figures
 * table, advise, routes, the HTML page's data).  The writer owns the
 * structure: jw_key writes a member's comma and key, jw_begin and jw_end
 * nest objects and arrays (jw_item separates an array's values), and each
 * value is written null where it has none.  Strings go through
 * esc_json_string (common/escape.h).  The layout is the project's one
 * line per object: ", " between members, ": " after a key; a caller adds
 * its own line breaks with jw_raw.
 */
#ifndef JSONW_H
#define JSONW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JW_DEPTH 16

typedef struct {
    FILE         *out;
    int           depth;
    unsigned char any[JW_DEPTH]; /* a member or an item written at this depth */
} jw;

/* A writer onto out, outside any object. */
jw jw_on(FILE *out);

/* A member of the object open: its comma (but for the first) and "key": . */
void jw_key(jw *w, const char *key);

/* The next value of the array open: its comma, but for the first. */
void jw_item(jw *w);

/* The same on a line of its own: a comma (but for the first), then line
 * ("\n  ": an item a line, indented). */
void jw_item_line(jw *w, const char *line);

/* Opens an object ('{') or an array ('[') as the value just keyed (or the
 * item, or the document); jw_end closes it ('}' or ']'). */
void jw_begin(jw *w, char open);
void jw_end(jw *w, char close);

/* Bytes as they are, for layout (a line break before an array's item). */
void jw_raw(jw *w, const char *s);

/* Values: an integer, a real number (shortest round-trip form), a figure
 * kept in hundredths (12.34), a real rounded half away from zero to two
 * decimals, a string of n bytes (NULL: null), a NUL-terminated word, true
 * or false; each null when !has. */
void jw_int(jw *w, int has, int64_t v);
void jw_num(jw *w, int has, double d);
void jw_hundredths(jw *w, int has, int64_t h);
void jw_two(jw *w, double d);
void jw_str(jw *w, const char *s, size_t n);
void jw_word(jw *w, const char *word);
void jw_bool(jw *w, int v);
void jw_null(jw *w);

/* A member and its value in one: jw_key, then the value as above. */
void jw_int_member(jw *w, const char *key, int has, int64_t v);
void jw_num_member(jw *w, const char *key, int has, double d);
void jw_hundredths_member(jw *w, const char *key, int has, int64_t h);
void jw_bool_member(jw *w, const char *key, int v);

#endif
