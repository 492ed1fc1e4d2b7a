/* Seeking windows: which frames a window needs (seek.h). */
#define _POSIX_C_SOURCE 200809L
#include "seek.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "rc.h"
#include "msg.h"
#include "pipeline.h"
#include "fpmidx.h"
#include "zframe.h"

/* A zstd frame of a LOG, and the summary after it. */
typedef struct {
    uint64_t off, end;          /* the frame's start; past its summary (or itself) */
    uint64_t sum_off;           /* the summary's start, end when none */
    int64_t  run;               /* the stretch of skippable frames it is in, or -1 */
    uint64_t rounds, min_real, max_real; /* what its summary says */
    int      may_skip;          /* its summary checks out, says it is outside the window
                                 * and ends between rounds, as does the frame before it */
} frame;

/* A stretch of skippable frames of one file: frames [a, b), the last prime
 * of them read. */
typedef struct {
    size_t file, a, b, prime;
} run;

typedef struct {
    struct seek *s;
    size_t   i;                 /* its LOG number */
    frame   *f;
    size_t   n, cap;
    size_t   cursor;            /* the frame the reader was last at */
    char    *path;
    fpmidx   x;                 /* its frames, their summaries' numbers and pools */
    size_t   indexed;           /* frames found in its index */
    uint64_t index_at;          /* where its index begins ... */
    const char *index_damage;   /* ... when it is damaged: what is wrong, else NULL */
} file;

struct seek {
    int      has_from, has_until;
    uint64_t from, until;
    file    *files;
    size_t   nfiles;
    run     *runs;
    size_t   nruns, cap_runs;
    fpmsum_reader *sr;
    unsigned char *buf;
    size_t   buf_cap;
};

seek *seek_new(int has_from, uint64_t from, int has_until, uint64_t until)
{
    seek *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    *s = (seek){.has_from = has_from, .has_until = has_until, .from = from, .until = until};
    if (!(s->sr = fpmsum_reader_new())) {
        free(s);
        return NULL;
    }
    return s;
}

void seek_free(seek *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nfiles; i++) {
        free(s->files[i].f);
        free(s->files[i].path);
        fpmidx_free(&s->files[i].x);
    }
    free(s->files);
    free(s->runs);
    free(s->buf);
    fpmsum_reader_free(s->sr);
    free(s);
}

/* The summary at off, len bytes, read and checked.  0, FPM_EFAIL (it does
 * not check out), FPM_ENOMEM, or a visitor's nonzero. */
static int read_summary(seek *s, int fd, uint64_t off, uint64_t len, fpmsum *sum,
                        const fpmsum_visit *visit)
{
    if (len > FPMSUM_MAX)
        return FPM_EFAIL;
    if (grow(&s->buf, &s->buf_cap, (size_t)len, 1, 4096))
        return FPM_ENOMEM;
    if (zf_pread_all(fd, s->buf, (size_t)len, off) != len)
        return FPM_EFAIL;
    return fpmsum_read(s->sr, s->buf, (size_t)len, sum, visit);
}

/* Whether a summary's rounds all lie outside the window. */
static int outside(const seek *s, uint64_t rounds, uint64_t min_real, uint64_t max_real)
{
    return rounds == 0 || (s->has_until && min_real >= s->until) ||
           (s->has_from && max_real < s->from);
}

static int add_frame(file *f, frame fr)
{
    if (grow(&f->f, &f->cap, f->n + 1, sizeof *f->f, 256))
        return FPM_ENOMEM;
    f->f[f->n++] = fr;
    return 0;
}

static int add_run(seek *s, size_t fi, size_t a, size_t b)
{
    if (grow(&s->runs, &s->cap_runs, s->nruns + 1, sizeof *s->runs, 64))
        return FPM_ENOMEM;
    s->runs[s->nruns++] = (run){fi, a, b, 0};
    return 0;
}

/* The frames of f (its index x) as seek plans them; each marked skippable
 * (run 0) or not (-1).  0, FPM_ENOMEM. */
static int plan_frames(seek *s, file *f)
{
    const fpmidx *x = &f->x;
    int clean = 1; /* the frame before ended between rounds (or none was) */
    uint64_t prev_end = 0;
    for (size_t k = 0; k < x->n; k++) {
        const fpmidx_frame *xf = &x->f[k];
        int ok = xf->sum_len > 0;
        if (xf->off != prev_end)
            clean = 0; /* bytes that are not frames before it: what they end in is not known */
        frame fr = {xf->off, xf->off + xf->len + xf->sum_len, xf->off + xf->len, -1,
                    ok ? xf->rounds : 0, ok ? xf->min_real : 0, ok ? xf->max_real : 0, 0};
        fr.may_skip = ok && clean && xf->seekable && outside(s, xf->rounds, xf->min_real, xf->max_real);
        clean = ok && xf->seekable;
        prev_end = fr.end;
        if (add_frame(f, fr) != 0)
            return FPM_ENOMEM;
    }
    /* A summary's times are believed only in order with its neighbours':
     * times that jump back or ahead of the frames around it (a lie, or a
     * clock stepped back) leave the frame to be read. */
    frame *before = NULL; /* the last frame with rounds */
    for (size_t k = 0; k < f->n; k++) {
        frame *fr = &f->f[k];
        if (fr->rounds == 0)
            continue;
        if (before && before->max_real > fr->min_real)
            before->may_skip = fr->may_skip = 0;
        before = fr;
    }
    for (size_t k = 0; k < f->n; k++)
        f->f[k].run = f->f[k].may_skip ? 0 : -1;
    return 0;
}

/* f's frames: from its trailing index when one checks out (the frames
 * before the index's start walked), else all walked.  0, FPM_ENOMEM. */
static int index_file(file *f, int fd, uint64_t size)
{
    fpmidx pre = {0};
    const char *why = NULL;
    int rc = fpmidx_load(fd, size, &f->x, &f->index_at, &why);
    if (rc == FPM_ENOMEM)
        return rc;
    if (rc == FPMIDX_DAMAGED)
        f->index_damage = why;
    f->indexed = rc == 0 ? f->x.n : 0;
    if (rc != 0) {
        rc = fpmidx_walk(fd, 0, size, &f->x);
    } else if (f->x.start > 0 && (rc = fpmidx_walk(fd, 0, f->x.start, &pre)) == 0) {
        /* the frames before the index's, then its own */
        fpmidx *x = &f->x;
        for (size_t k = 0; k < x->n; k++) {
            x->f[k].host = x->f[k].host < x->nnames ? x->f[k].host + pre.nnames : SIZE_MAX;
            x->f[k].pool0 += pre.nnames;
        }
        if (grow(&pre.f, &pre.cap, pre.n + x->n, sizeof *pre.f, 256) ||
            grow(&pre.names, &pre.cap_names, pre.nnames + x->nnames, sizeof *pre.names, 64) ||
            !(pre.lens = realloc(pre.lens, pre.cap_names * sizeof *pre.lens))) {
            fpmidx_free(&pre);
            return FPM_ENOMEM;
        }
        memcpy(pre.f + pre.n, x->f, x->n * sizeof *x->f);
        memcpy(pre.names + pre.nnames, x->names, x->nnames * sizeof *x->names);
        memcpy(pre.lens + pre.nnames, x->lens, x->nnames * sizeof *x->lens);
        pre.n += x->n;
        pre.nnames += x->nnames;
        x->nnames = 0; /* the names are pre's now */
        fpmidx_free(x);
        *x = pre;
    }
    return rc;
}

int seek_add(seek *s, const char *path)
{
    file *nf = realloc(s->files, (s->nfiles + 1) * sizeof *nf);
    if (!nf)
        return FPM_ENOMEM;
    s->files = nf;
    file *f = &s->files[s->nfiles];
    *f = (file){.s = s, .i = s->nfiles};
    s->nfiles++;
    if (!(f->path = strdup(path)))
        return FPM_ENOMEM;
    struct stat sb;
    int fd = strcmp(path, "-") == 0 ? -1 : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    int rc = 0;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
        (rc = index_file(f, fd, (uint64_t)sb.st_size)) == 0)
        rc = plan_frames(s, f);
    close(fd);
    /* the stretches of skippable frames */
    for (size_t k = 0; rc == 0 && k < f->n;) {
        if (f->f[k].run < 0) {
            k++;
            continue;
        }
        size_t a = k;
        while (k < f->n && f->f[k].run >= 0)
            f->f[k++].run = (int64_t)s->nruns;
        rc = add_run(s, f->i, a, k);
    }
    return rc;
}

void seek_plan(seek *s)
{
    /* a stretch after which nothing is read needs no rounds of its own */
    int read_after = 0;
    for (size_t fi = s->nfiles; fi-- > 0;) {
        file *f = &s->files[fi];
        read_after |= f->n == 0; /* a file read whole */
        for (size_t k = f->n; k-- > 0;) {
            frame *fr = &f->f[k];
            if (fr->run < 0) {
                read_after = 1;
            } else if (k + 1 == f->n || f->f[k + 1].run != fr->run) {
                run *r = &s->runs[fr->run];
                r->prime = read_after ? 1 : 0;
            }
        }
        read_after = 1; /* what follows the last frame (a tail) is read */
    }
}

int seek_more(seek *s, const uint64_t *ids, size_t n)
{
    int changed = 0;
    for (size_t i = 0; i < n; i++) {
        if (ids[i] >= s->nruns)
            continue;
        run *r = &s->runs[ids[i]];
        size_t len = r->b - r->a, want = r->prime ? r->prime * 2 : 1;
        if (want > len)
            want = len;
        changed |= want != r->prime;
        r->prime = want;
    }
    return changed;
}

void *seek_file(seek *s, size_t i)
{
    return i < s->nfiles ? &s->files[i] : NULL;
}

/* The frame of f starting at off, or NULL. */
static frame *frame_at(file *f, uint64_t off)
{
    if (f->cursor < f->n && f->f[f->cursor].off == off)
        return &f->f[f->cursor];
    size_t lo = 0, hi = f->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->f[mid].off == off) {
            f->cursor = mid;
            return &f->f[mid];
        }
        if (f->f[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

uint64_t seek_skip(void *arg, uint64_t off)
{
    file *f = arg;
    frame *fr = f ? frame_at(f, off) : NULL;
    if (!fr || fr->run < 0)
        return 0;
    run *r = &f->s->runs[fr->run];
    size_t k = (size_t)(fr - f->f), last = r->b - r->prime; /* frames [k, last) are skipped */
    if (k >= last)
        return 0;
    f->cursor = last;
    return f->f[last - 1].end - off;
}

int seek_jumped(seek *s, size_t i, uint64_t off, uint64_t len, seek_record_fn record,
                seek_done_fn done, void *arg)
{
    file *f = seek_file(s, i);
    frame *fr = f ? frame_at(f, off) : NULL;
    if (!fr)
        return FPM_EFAIL;
    int fd = -1; /* opened for a frame with records of its own */
    fpmsum_visit v = {NULL, record, arg}; /* its pools are the index's */
    int rc = 0;
    for (size_t k = (size_t)(fr - f->f); rc == 0 && k < f->n && f->f[k].off < off + len; k++) {
        fpmsum sum;
        const frame *x = &f->f[k];
        const fpmidx_frame *xf = &f->x.f[k];
        seek_frame sf = {&sum, (const char *const *)f->x.names + xf->pool0, f->x.lens + xf->pool0,
                         xf->npools, (uint64_t)x->run};
        if (xf->own == 0) { /* all it says is in the index: nothing to read */
            fpmidx_sum(&f->x, k, &sum);
        } else { /* its own HOST and POOL records, from its summary */
            if (fd < 0 && (fd = open(f->path, O_RDONLY | O_CLOEXEC)) < 0)
                return FPM_EFAIL;
            rc = read_summary(s, fd, x->sum_off, x->end - x->sum_off, &sum, &v);
        }
        if (rc == 0)
            rc = done(arg, &sf);
    }
    if (fd >= 0)
        close(fd);
    return rc;
}

const char *seek_index_damage(const seek *s, size_t i, uint64_t *at)
{
    if (i >= s->nfiles || !s->files[i].index_damage)
        return NULL;
    *at = s->files[i].index_at;
    return s->files[i].index_damage;
}

seek_stats seek_stats_of(const seek *s)
{
    seek_stats st = {0};
    for (size_t fi = 0; fi < s->nfiles; fi++) {
        const file *f = &s->files[fi];
        st.indexed += f->indexed;
        for (size_t k = 0; k < f->n; k++) {
            const frame *fr = &f->f[k];
            int skipped = fr->run >= 0 && k < s->runs[fr->run].b - s->runs[fr->run].prime;
            st.frames++;
            st.bytes += fr->end - fr->off;
            st.skipped += (uint64_t)skipped;
            st.skipped_bytes += skipped ? fr->end - fr->off : 0;
        }
    }
    return st;
}
