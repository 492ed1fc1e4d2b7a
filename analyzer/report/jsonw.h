/*
 * jsonw: the one small JSON writer of the report, the figures table and
 * advise: a value each, null where it has none.  Keys and their commas are
 * the caller's; strings go through esc_json_string (common/escape.h).
 */
#ifndef JSONW_H
#define JSONW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* An integer, or null when !has. */
void jw_int(FILE *out, int has, int64_t v);

/* A real number (shortest round-trip form), or null when !has. */
void jw_num(FILE *out, int has, double d);

/* A figure in hundredths with two decimals (12.34, 1.00), or null when !has. */
void jw_hundredths(FILE *out, int has, int64_t h);

/* A real number rounded half away from zero to two decimals (knee, bounds). */
void jw_two(FILE *out, double d);

/* A string of n bytes, escaped, or null when s is NULL. */
void jw_str(FILE *out, const char *s, size_t n);

/* A NUL-terminated word, or null when w is NULL. */
void jw_word(FILE *out, const char *w);

/* "key": , with a comma before it unless *first (then cleared). */
void jw_key(FILE *out, const char *key, int *first);

#endif
