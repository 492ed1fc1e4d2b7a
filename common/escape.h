/*
 * escape: names from a log (pools, hosts: any bytes) made safe for where
 * they are printed: a JSON string, a label value, a terminal; and a JSON
 * string read back.  Invalid UTF-8
 * becomes U+FFFD everywhere.  Nothing here allocates but esc_display_name.
 */
#ifndef ESCAPE_H
#define ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* The length of the valid UTF-8 sequence at s[0..n), 0 when it is invalid. */
size_t esc_utf8_len(const unsigned char *s, size_t n);

/* Writes s[0..n) as a JSON string, quotes included. */
void esc_json_string(FILE *out, const char *s, size_t n);

/* The other way, for a JSON string read (php-fpm's status page): copies
 * s[0..n) into d decoding its valid escapes (\uXXXX, surrogate pairs
 * joined, as UTF-8); an invalid one is kept as written.  Returns the length
 * written, never more than n. */
size_t esc_json_unescape(char *d, const char *s, size_t n);

/* Writes s[0..n) as an OpenMetrics / Prometheus label value (no quotes):
 * \\, \" and \n escaped. */
void esc_om_label(FILE *out, const char *s, size_t n);

/* Writes d as the shortest decimal that reads back as the same double, or
 * null when it is not finite. */
void esc_double(FILE *out, double d);

/* The same into b, returned ("null" when not finite). */
#define ESC_DOUBLE 40
const char *esc_double_text(char b[ESC_DOUBLE], double d);

#define ESC_HUNDREDTHS 24

/* A figure kept in hundredths (>= 0) as it is printed: 1234 is "12.34".
 * Returns b (ESC_HUNDREDTHS bytes). */
const char *esc_hundredths(char *b, long long v);

/* Writes s[0..n) as HTML text or an attribute's value (quoted with "):
 * & < > " and ' as entities, control bytes (tab and newline but for
 * attributes) and invalid UTF-8 as U+FFFD, so that no byte from a log can
 * open a tag, end an attribute or a style element, or break the page's
 * encoding.  Inside an inline SVG the same holds (HTML parses it). */
void esc_html(FILE *out, const char *s, size_t n);

/* The same for a whole string, NUL-terminated. */
void esc_html_str(FILE *out, const char *s);

/* Writes s[0..n) (markup, gnuplot's SVG) as it is but for its invalid
 * UTF-8 and control bytes (tab, newline and carriage return kept), which
 * become U+FFFD: the page's encoding holds whatever a chart's text held. */
void esc_display_svg(FILE *out, const char *s, size_t n);

/* A name for the terminal: control bytes and invalid UTF-8 as U+FFFD.
 * malloc'd (NULL on ENOMEM); *width gets its width in code points (may be
 * NULL). */
char *esc_display_name(const char *s, size_t n, size_t *width);

#endif
