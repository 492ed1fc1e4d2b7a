/* Escaping names for JSON, metrics labels and terminals. */
#include "escape.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s[0..n), 0 when invalid. */
size_t esc_utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t k;
    uint32_t min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) { k = 2; min = 0x80; }
    else if (c >= 0xE0 && c <= 0xEF) { k = 3; min = 0x800; }
    else if (c >= 0xF0 && c <= 0xF4) { k = 4; min = 0x10000; }
    else return 0;
    if (k > n)
        return 0;
    uint32_t cp = c & (0xFF >> (k + 1));
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000))
        return 0;
    return k;
}

void esc_json_string(FILE *out, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    fputc('"', out);
    for (size_t i = 0; i < n;) {
        size_t k = esc_utf8_len(s + i, n - i);
        if (k == 0) {
            fputs("\xEF\xBF\xBD", out);
            i++;
            continue;
        }
        unsigned char c = s[i];
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20 || c == 0x7F)
            fprintf(out, "\\u%04x", c);
        else
            fwrite(s + i, 1, k, out);
        i += k;
    }
    fputc('"', out);
}

/* A name for a terminal: valid UTF-8, control and invalid bytes as U+FFFD.
 * Returns a malloc'd string and its width in code points. */
char *esc_display_name(const char *str, size_t n, size_t *width)
{
    const unsigned char *s = (const unsigned char *)str;
    char *d = malloc(3 * n + 1);
    size_t o = 0, w = 0;
    if (!d)
        return NULL;
    for (size_t i = 0; i < n; w++) {
        size_t k = esc_utf8_len(s + i, n - i);
        if (k == 0 || s[i] < 0x20 || s[i] == 0x7F) {
            memcpy(d + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        } else {
            memcpy(d + o, s + i, k);
            o += k;
            i += k;
        }
    }
    d[o] = '\0';
    if (width)
        *width = w;
    return d;
}

/* A label value: \\, \" and \n escaped, invalid UTF-8 as U+FFFD. */
void esc_om_label(FILE *out, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    for (size_t i = 0; i < n;) {
        size_t k = esc_utf8_len(s + i, n - i);
        if (k == 0) {
            fputs("\xEF\xBF\xBD", out);
            i++;
        } else if (s[i] == '\\' || s[i] == '"') {
            fprintf(out, "\\%c", s[i]);
            i++;
        } else if (s[i] == '\n') {
            fputs("\\n", out);
            i++;
        } else {
            fwrite(s + i, 1, k, out);
            i += k;
        }
    }
}

/* The shortest decimal that reads back as the same double; null if none. */
const char *esc_hundredths(char *b, long long v)
{
    snprintf(b, ESC_HUNDREDTHS, "%lld.%02lld", v / 100, v % 100);
    return b;
}

const char *esc_double_text(char b[ESC_DOUBLE], double d)
{
    if (!isfinite(d))
        return "null";
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(b, ESC_DOUBLE, "%.*g", prec, d);
        if (strtod(b, NULL) == d)
            break;
    }
    return b;
}

void esc_double(FILE *out, double d)
{
    char b[ESC_DOUBLE];
    fputs(esc_double_text(b, d), out);
}

static void put_utf8(char *d, size_t *o, uint32_t cp)
{
    if (cp < 0x80) {
        d[(*o)++] = (char)cp;
    } else if (cp < 0x800) {
        d[(*o)++] = (char)(0xC0 | cp >> 6);
        d[(*o)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        d[(*o)++] = (char)(0xE0 | cp >> 12);
        d[(*o)++] = (char)(0x80 | (cp >> 6 & 0x3F));
        d[(*o)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        d[(*o)++] = (char)(0xF0 | cp >> 18);
        d[(*o)++] = (char)(0x80 | (cp >> 12 & 0x3F));
        d[(*o)++] = (char)(0x80 | (cp >> 6 & 0x3F));
        d[(*o)++] = (char)(0x80 | (cp & 0x3F));
    }
}

static int hex4(const char *s, size_t n, size_t i, uint32_t *out)
{
    uint32_t v = 0;
    if (i + 4 > n)
        return -1;
    for (size_t k = i; k < i + 4; k++) {
        char c = s[k];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v << 4 | (uint32_t)d;
    }
    *out = v;
    return 0;
}

size_t esc_json_unescape(char *d, const char *s, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        const char *bs = memchr(s + i, '\\', n - i);
        size_t run = bs ? (size_t)(bs - s) - i : n - i;
        memcpy(d + o, s + i, run); /* up to the next backslash, as it is */
        o += run;
        i += run;
        if (i >= n)
            break;
        if (i + 1 == n) {
            d[o++] = s[i];
            continue;
        }
        char e = s[i + 1], to = 0;
        switch (e) {
        case '"': case '\\': case '/': to = e; break;
        case 'b': to = '\b'; break;
        case 'f': to = '\f'; break;
        case 'n': to = '\n'; break;
        case 'r': to = '\r'; break;
        case 't': to = '\t'; break;
        }
        if (to) {
            d[o++] = to;
            i++;
            continue;
        }
        uint32_t cp, lo;
        if (e == 'u' && hex4(s, n, i + 2, &cp) == 0) {
            if (cp >= 0xD800 && cp < 0xDC00) {
                if (i + 12 <= n && s[i + 6] == '\\' && s[i + 7] == 'u' &&
                    hex4(s, n, i + 8, &lo) == 0 && lo >= 0xDC00 && lo < 0xE000) {
                    put_utf8(d, &o, 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00));
                    i += 11;
                    continue;
                }
            } else if (cp < 0xDC00 || cp >= 0xE000) {
                put_utf8(d, &o, cp);
                i += 5;
                continue;
            }
        }
        d[o++] = s[i]; /* not a valid escape: keep the backslash as written */
    }
    return o;
}

void esc_html(FILE *out, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    for (size_t i = 0; i < n;) {
        size_t k = esc_utf8_len(s + i, n - i);
        unsigned char c = s[i];
        if (k == 0 || (c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) {
            fputs("\xEF\xBF\xBD", out);
            i++;
            continue;
        }
        switch (c) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fwrite(s + i, 1, k, out);
        }
        i += k;
    }
}

void esc_html_str(FILE *out, const char *s)
{
    esc_html(out, s, strlen(s));
}

void esc_display_svg(FILE *out, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t run = 0; /* bytes kept as they are, written in one go */
    for (size_t i = 0; i < n;) {
        size_t k = esc_utf8_len(s + i, n - i);
        unsigned char c = s[i];
        if (k && (c >= 0x20 || c == '\t' || c == '\n' || c == '\r') && c != 0x7F) {
            run += k;
            i += k;
            continue;
        }
        fwrite(s + i - run, 1, run, out);
        run = 0;
        fputs("\xEF\xBF\xBD", out);
        i++;
    }
    fwrite(s + n - run, 1, run, out);
}
