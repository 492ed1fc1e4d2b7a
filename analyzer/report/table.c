/* Text tables, columns lined up. */
#include "table.h"
#include "rc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

table tbl_new(size_t ncols, const int *left)
{
    return (table){.ncols = ncols, .left = left};
}

void tbl_cell_owned(table *t, char *owned, size_t width)
{
    if (!owned || t->failed) {
        t->failed = 1;
        free(owned);
        return;
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        char **c = realloc(t->cell, cap * sizeof *c);
        if (c)
            t->cell = c;
        size_t *w = c ? realloc(t->width, cap * sizeof *w) : NULL;
        if (w)
            t->width = w;
        if (!c || !w) {
            t->failed = 1;
            free(owned);
            return;
        }
        t->cap = cap;
    }
    t->cell[t->n] = owned;
    t->width[t->n++] = width;
}

void tbl_cell(table *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (b) {
        va_start(ap, fmt);
        vsnprintf(b, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    size_t w = 0; /* in code points: UTF-8 continuation bytes take no room */
    for (const char *p = b; p && *p; p++)
        w += ((unsigned char)*p & 0xC0) != 0x80;
    tbl_cell_owned(t, b, w);
}

const char *tbl_get(const table *t, size_t row, size_t col)
{
    size_t i = row * t->ncols + col;
    return col < t->ncols && i < t->n ? t->cell[i] : "";
}

/* A line being built: cells and padding, trailing spaces cut at the end. */
typedef struct {
    char  *p;
    size_t n, cap;
} line;

static int put(line *l, const char *s, size_t n, char fill)
{
    if (l->n + n + 2 > l->cap) {
        size_t cap = (l->n + n + 2) * 2;
        char *p = realloc(l->p, cap);
        if (!p)
            return FPM_ENOMEM;
        l->p = p;
        l->cap = cap;
    }
    if (s)
        memcpy(l->p + l->n, s, n);
    else
        memset(l->p + l->n, fill, n);
    l->n += n;
    return 0;
}

int tbl_print(FILE *out, const table *t)
{
    if (t->failed)
        return FPM_ENOMEM;
    size_t *width = calloc(t->ncols ? t->ncols : 1, sizeof *width);
    line l = {0};
    int rc = width ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < t->n; i++)
        if (t->width[i] > width[i % t->ncols])
            width[i % t->ncols] = t->width[i];
    for (size_t r = 0; rc == 0 && r * t->ncols < t->n; r++) {
        l.n = 0;
        for (size_t c = 0; rc == 0 && c < t->ncols; c++) {
            size_t i = r * t->ncols + c;
            const char *cell = i < t->n ? t->cell[i] : "";
            size_t fill = width[c] - (i < t->n ? t->width[i] : 0);
            rc |= c > 0 ? put(&l, "  ", 2, 0) : 0;
            rc |= !t->left[c] ? put(&l, NULL, fill, ' ') : 0;
            rc |= put(&l, cell, strlen(cell), 0);
            rc |= t->left[c] ? put(&l, NULL, fill, ' ') : 0;
        }
        while (l.n > 0 && l.p[l.n - 1] == ' ')
            l.n--;
        if (rc == 0 && put(&l, "\n", 1, 0) == 0)
            fwrite(l.p, 1, l.n, out);
    }
    free(l.p);
    free(width);
    return rc;
}

void tbl_free(table *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->cell[i]);
    free(t->cell);
    free(t->width);
    t->cell = NULL;
    t->width = NULL;
    t->n = t->cap = 0;
}
