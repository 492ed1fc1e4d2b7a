/*
 * figures: every per-pool figure, once, in one table (as PL_SIGNALS is for
 * the host's signals): its JSON key (also its CSV column), its value, its
 * OpenMetrics family and whether `check` compares it.  The JSON (and so
 * the CSV, which is the JSON flattened), OpenMetrics and check loop over
 * FIG_POOL in its order; a new figure is an entry here and the rule that
 * computes it (docs/design.md, "A pool figure").
 */
#ifndef FIGURES_H
#define FIGURES_H

#include <stdint.h>
#include <stdio.h>

#include "jsonw.h"
#include "state.h"
#include "whatif.h"

typedef enum {
    FIG_INT,        /* an integer */
    FIG_HUNDREDTHS, /* a percentage in hundredths, printed 12.34 */
    FIG_DOUBLE,     /* a real number */
    FIG_BOOL,       /* true or false, never null */
    FIG_WORD,       /* a string */
    FIG_OBJECT,     /* printed by its own json step (nested, or an array) */
    FIG_MEMBERS,    /* (a host's) several members of the object, keys its own */
} fig_kind;

typedef struct {
    int         has;  /* 0: null */
    int64_t     i;    /* FIG_INT, FIG_HUNDREDTHS, FIG_BOOL */
    double      d;    /* FIG_DOUBLE */
    const char *word; /* FIG_WORD, word_len bytes */
    size_t      word_len;
} fig_value;

/* One OpenMetrics sample of a pool: a name suffix ("_count"; a counter's
 * "_total" is added for it), extra labels (",quantile=\"0.5\"") and its
 * value. */
typedef struct {
    const char *suffix, *labels;
    double      x;
} fig_sample;

#define FIG_MAX_SAMPLES 3

/* An OpenMetrics family.  samples NULL: one sample, the figure's value
 * divided by scale, where the figure has one. */
typedef struct {
    const char *name, *type, *unit, *help;
    double      scale;
    size_t (*samples)(const pl_pool *p, const wi_view *v, fig_sample out[FIG_MAX_SAMPLES]);
} fig_family;

/* What check compares (cmd/check.c): a share up by more than the bucket
 * tolerance, the shape, the overhead, a count that grew, a figure up by
 * more than 20% (10% more per step of --tolerance). */
typedef enum { CHK_NONE, CHK_SHARE, CHK_SHAPE, CHK_OVERHEAD, CHK_MORE, CHK_RISE,
               CHK_MEMORY } fig_check; /* CHK_MEMORY: W up by 20% and a bucket (14.6) */

typedef struct {
    const char *key;    /* the JSON key, and the CSV column (an object's: its columns) */
    fig_kind    kind;
    void (*get)(const pl_pool *p, const wi_view *v, fig_value *out);   /* but FIG_OBJECT */
    void (*json)(jw *w, const pl_pool *p, const wi_view *v);           /* FIG_OBJECT: the value */
    const char *const *cols; /* FIG_OBJECT's CSV columns, NULL-terminated ... */
    void (*columns)(void (*add)(void *arg, const char *col), void *arg); /* ... or made */
    fig_family  om[2];  /* name NULL: none */
    fig_check   check;
    const char *label;  /* what check's lines call it ... */
    const char *detail; /* ... and what a CHK_MORE count means */
} fig_entry;

extern const fig_entry FIG_POOL[];
extern const size_t    FIG_NPOOL;

/* A column of the text's pool table: its heading, left-aligned or not, and
 * the figure it shows (a value and its unit, "25%", "700m", "46MiB", or
 * what stands for none). */
typedef struct {
    const char *heading;
    int         left;
    fig_kind    kind;   /* FIG_INT, FIG_HUNDREDTHS or FIG_WORD */
    void (*get)(const pl_pool *p, const wi_view *v, fig_value *out);
    const char *unit, *missing;
    const char *zero;   /* what stands for 0 ("<5%": a bucket floor of 0), NULL: 0 */
    const char *label;  /* the page's words for it, after the heading */
} fig_column;

/* The text's pool table, in its order; FIG_NTEXT_MAX its room. */
#define FIG_NTEXT_MAX 32
extern const fig_column FIG_TEXT[];
extern const size_t     FIG_NTEXT;

/* The entry of key, or NULL. */
const fig_entry *fig_find(const char *key);

/* ------------------------------------------------------------ the host's figures
 * The host's figures, once, in one table as the pools' are: its JSON key
 * (the CSV's column, or an object's columns), its value from the host's
 * answer, its OpenMetrics families and the words the HTML page labels it
 * with.  The JSON's host object, the CSV's host columns, OpenMetrics' host
 * families and the page's host table walk it; a new host figure is one
 * entry. */
typedef struct {
    const char *name, *type, *unit, *help;
    /* the samples of one host: value x (and extra labels), how many */
    size_t (*samples)(const wi_host *a, fig_sample out[FIG_MAX_SAMPLES]);
} fig_host_family;

typedef struct {
    const char *key;
    fig_kind    kind;
    void (*get)(const wi_host *a, fig_value *out);   /* but FIG_OBJECT */
    void (*json)(jw *w, const wi_host *a);           /* FIG_OBJECT: the value (or values) */
    void (*columns)(void (*add)(void *arg, const char *col), void *arg); /* FIG_OBJECT's */
    fig_host_family om[3];                            /* name NULL: none */
    const char *label;                                /* the page's words; NULL: not shown */
} fig_host_entry;

extern const fig_host_entry FIG_HOST[];
extern const size_t         FIG_NHOST;

/* The host's members of its JSON object, every entry in order (the caller
 * opens the object and adds "pools"). */
void fig_host_json(jw *w, const wi_host *a);

/* The host's CSV columns, in the JSON's order, each given to add. */
void fig_host_columns(void (*add)(void *arg, const char *col), void *arg);

/* A host figure as text for the page: its value with its unit, or "-". */
void fig_host_text(const fig_host_entry *e, const wi_host *a, char *b, size_t n);

/* A pool's JSON object, every entry in order, as the value at w. */
void fig_json(jw *w, const pl_pool *p, const wi_view *v);

/* 19.4: a route's JSON object (the report's routes, routes --format json). */
void fig_route_json(jw *w, const rt_fig *f);

/* The CSV columns of a pool, in the JSON's order, each given to add. */
void fig_columns(void (*add)(void *arg, const char *col), void *arg);

#endif
