/*
 * table: a small text-table engine.  Cells are added row by row, left to
 * right; each column is left- or right-aligned; widths are counted in UTF-8
 * code points, columns are two spaces apart and trailing spaces are cut.
 * No cap on columns, cells or line length.  An allocation failure is
 * remembered and reported by tbl_print.
 */
#ifndef TABLE_H
#define TABLE_H

#include <stddef.h>
#include <stdio.h>

typedef struct {
    size_t      ncols;
    const int  *left;        /* ncols flags: 1 left-aligned, 0 right */
    char      **cell;        /* n cells, row after row */
    size_t     *width;
    size_t      n, cap;
    int         failed;
} table;

/* A table of ncols columns; left must outlive it. */
table tbl_new(size_t ncols, const int *left);

/* Adds the next cell, printf-style. */
void tbl_cell(table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Adds the next cell, taking owned (malloc'd; NULL marks the table failed)
 * of the given width. */
void tbl_cell_owned(table *t, char *owned, size_t width);

/* The cell at row, col, or "" when there is none. */
const char *tbl_get(const table *t, size_t row, size_t col);

/* Prints the rows.  0, or FPM_ENOMEM when a cell could not be added. */
int tbl_print(FILE *out, const table *t);

void tbl_free(table *t);

#endif
