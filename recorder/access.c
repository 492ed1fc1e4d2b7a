/* The recorder's ACCESS records: php-fpm's access logs, every line
 * (access.h; fpmlog(5) ACCESS). */
#define _POSIX_C_SOURCE 200809L
#include "access.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "msg.h"
#include "rc.h"
#include "record_int.h"
#include "records.h"

int access_why_sample(const rec_pool *p, char *out, size_t outlen)
{
    if (!p->c.access_log) {
        snprintf(out, outlen, "pool %s: no access.log: its figures will be a sample (the last "
                 "request of each worker the status page shows); to count every request, add "
                 "to the pool: access.log = /var/log/php-fpm/$pool.access.log and "
                 "access.format = \"%s\"", p->c.name, ACCESS_CENSUS_FORMAT);
        return 1;
    }
    af_format f = {0};
    if (af_compile(&f, p->c.access_format, strlen(p->c.access_format)) != 0) {
        snprintf(out, outlen, "pool %s: out of memory", p->c.name);
        return 1;
    }
    int usable = f.usable;
    if (!usable)
        snprintf(out, outlen, "pool %s: its access.format (%s) is %s: its figures will be a "
                 "sample (the last request of each worker the status page shows); to count "
                 "every request, set in the pool: access.format = \"%s\"",
                 p->c.name, p->c.access_format, f.reason, ACCESS_CENSUS_FORMAT);
    af_free(&f);
    return !usable;
}

/* A tail's note: a NOTE in the log (every byte it skips is said there). */
static void note(void *arg, const char *fmt, ...)
{
    recorder *r = arg;
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    rec_note(r, "%s", text);
}

/* The tail following path, kept or started; its index, or -1 (ENOMEM). */
static long tail_of(recorder *r, tail_file *old, size_t nold, const char *path,
                    const tail_saved *saved, size_t nsaved)
{
    for (size_t i = 0; i < r->ntails; i++)
        if (strcmp(r->tails[i].path, path) == 0)
            return (long)i;
    tail_file *t = &r->tails[r->ntails];
    for (size_t i = 0; i < nold; i++)
        if (old[i].path && strcmp(old[i].path, path) == 0) { /* followed already */
            *t = old[i];
            old[i].path = NULL;
            return (long)r->ntails++;
        }
    if (tail_start(t, path, saved, nsaved, note, r) != 0)
        return -1;
    return (long)r->ntails++;
}

int access_setup(recorder *r)
{
    rec_config *cfg = r->cfg;
    tail_saved *saved = NULL;
    size_t nsaved = 0;
    char state[4200];
    snprintf(state, sizeof state, "%s.access", cfg->output);
    if (!r->tails_started && tail_state_read(state, &saved, &nsaved) != 0)
        return FPM_ENOMEM;
    r->tails_started = 1;
    tail_file *old = r->tails;
    size_t nold = r->ntails;
    r->tails = calloc(cfg->npools ? cfg->npools : 1, sizeof *r->tails);
    r->ntails = 0;
    int rc = r->tails ? 0 : FPM_ENOMEM;
    for (size_t i = 0; rc == 0 && i < cfg->npools; i++) {
        rec_pool *p = &cfg->pools[i];
        char why[1024];
        p->tail = -1;
        p->tail_owner = 0;
        af_free(&p->fmt);
        p->fmt_ok = 0;
        if (access_why_sample(p, why, sizeof why) && !p->said_sample && !cfg->quiet)
            msg_warnx("%s", why);
        p->said_sample = 1;
        if (!p->c.access_log)
            continue;
        if (af_compile(&p->fmt, p->c.access_format, strlen(p->c.access_format)) != 0) {
            rc = FPM_ENOMEM;
            break;
        }
        p->fmt_ok = 1;
        size_t before = r->ntails;
        long k = tail_of(r, old, nold, p->c.access_log, saved, nsaved);
        if (k < 0)
            rc = FPM_ENOMEM;
        p->tail = (int)k;
        p->tail_owner = r->ntails > before; /* the first to name it */
    }
    for (size_t i = 0; i < nold; i++) /* files no pool names any more */
        if (old[i].path)
            tail_close(&old[i]);
    free(old);
    tail_saved_free(saved, nsaved);
    return rc;
}

/* --redact-query: each line with its URI fields' queries cut, as the
 * pool's format finds them; a line that does not match is dropped (its
 * URI cannot be found).  The new length; *dropped the lines dropped. */
static size_t redact(recorder *r, rec_pool *p, const unsigned char *b, size_t n, size_t *dropped)
{
    af_matcher m;
    *dropped = 0;
    if (grow(&r->redbuf, &r->redcap, n ? n : 1, 1, 65536) || af_matcher_init(&m, &p->fmt)) {
        *dropped = (size_t)-1;
        return 0;
    }
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        const unsigned char *nl = memchr(b + i, '\n', n - i); /* every line has its newline */
        size_t ll = (size_t)(nl - (b + i));
        if (af_match(&m, &p->fmt, b + i, ll)) {
            o += af_redact(&m, &p->fmt, b + i, ll, r->redbuf + o);
            r->redbuf[o++] = '\n';
        } else {
            (*dropped)++;
        }
        i += ll + 1;
    }
    af_matcher_free(&m);
    return o;
}

void access_round(recorder *r)
{
    rec_config *cfg = r->cfg;
    for (size_t i = 0; i < cfg->npools; i++) {
        rec_pool *p = &cfg->pools[i];
        if (p->tail < 0 || !p->tail_owner)
            continue;
        tail_file *t = &r->tails[p->tail];
        uint64_t mono = MONO(r), real = REAL(r);
        long n = tail_read(t, &r->accbuf, &r->acccap, note, r);
        char why[600] = "";
        if (n == FPM_ENOMEM)
            snprintf(why, sizeof why, "access log %s: out of memory: no ACCESS this round",
                     t->path);
        else if (n < 0)
            snprintf(why, sizeof why, "access log %s cannot be opened: %s (tried again each "
                     "round; its figures are a sample until it can)", t->path,
                     t->err == EINVAL ? "not a regular file" : strerror(t->err));
        int change = msg_changed(&p->said_access, why);
        if (change == MSG_NEW) {
            msg_warnx("pool %s: %s", p->c.name, why);
            rec_note(r, "pool %s: %s", p->c.name, why);
        } else if (change == MSG_GONE && !cfg->quiet) {
            msg_warnx("pool %s: access log %s read", p->c.name, t->path);
        }
        if (n < 0)
            continue;
        const unsigned char *b = r->accbuf;
        size_t len = (size_t)n, dropped = 0;
        if (cfg->redact && len) {
            len = redact(r, p, r->accbuf, (size_t)n, &dropped);
            b = r->redbuf;
            if (dropped == (size_t)-1) {
                rec_note(r, "pool %s: out of memory: its %ld bytes of access log lines are not "
                         "recorded this round", p->c.name, n);
                continue;
            }
            if (dropped)
                rec_note(r, "pool %s: --redact-query: %zu access log line(s) that do not match "
                         "its access.format dropped (their queries could not be found)",
                         p->c.name, dropped);
        }
        rec_add(r, rec_name(REC_ACCESS), mono, real, p->c.name, b ? b : (const unsigned char *)"",
                len);
    }
}

void access_save(recorder *r)
{
    if (!r->ntails)
        return;
    char state[4200];
    snprintf(state, sizeof state, "%s.access", r->cfg->output);
    const char *why = tail_state_write(state, r->tails, r->ntails) == 0 ? "" : strerror(errno);
    if (msg_changed(&r->said_state, why) == MSG_NEW)
        msg_warnx("%s: could not be written: %s (a restart then starts each access log at its "
                  "end)", state, why);
}

void access_free(recorder *r)
{
    for (size_t i = 0; i < r->ntails; i++)
        tail_close(&r->tails[i]);
    free(r->tails);
    r->tails = NULL;
    r->ntails = 0;
    free(r->accbuf);
    free(r->redbuf);
    r->accbuf = r->redbuf = NULL;
    r->acccap = r->redcap = 0;
}
