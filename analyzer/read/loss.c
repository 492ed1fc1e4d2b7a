/* What damage cost, in rounds and time: see loss.h. */
#include "loss.h"

#include <stdio.h>
#include <string.h>

#include "timearg.h"

void loss_file(loss *l)
{
    l->open = 0;
    l->lost = l->uncounted = l->from = l->to = l->tail_after = 0;
    l->tail = 0;
    l->frame_known = 0;
}

void loss_damage(loss *l, uint64_t off)
{
    if (!l->open) {
        l->open = 1;
        l->at = off;
    }
}

void loss_new_run(loss *l)
{
    l->prev_has_seq = 0;
}

/* whole seconds, UTC */
static void when(uint64_t ns, char *out)
{
    timearg_format(ns - ns % 1000000000u, out);
}

static void span(loss *l, uint64_t a, uint64_t b)
{
    if (!l->from || a < l->from)
        l->from = a;
    if (b > l->to)
        l->to = b;
}

uint64_t loss_round(loss *l, uint64_t real, int has_seq, uint64_t seq, int compressed,
                    uint64_t frame_off, char *say, size_t n)
{
    uint64_t lost = 0;
    say[0] = '\0';
    if (l->open) {
        char a[40], b[40];
        when(real, b);
        if (l->has_prev && l->prev_has_seq && has_seq && seq > l->prev_seq) {
            lost = seq - l->prev_seq - 1;
            if (lost) {
                when(l->prev_real, a);
                snprintf(say, n, "offset %llu: %llu round%s lost, between %s and %s",
                         (unsigned long long)l->at, (unsigned long long)lost,
                         lost == 1 ? "" : "s", a, b);
                l->lost += lost;
                span(l, l->prev_real, real);
            }
        } else if (l->has_prev) { /* a recorder restarted, or no seq: how many is unknown */
            when(l->prev_real, a);
            snprintf(say, n, "offset %llu: the rounds between %s and %s are lost (how many "
                     "is not known: a recorder restarted there)", (unsigned long long)l->at, a, b);
            l->uncounted++;
            span(l, l->prev_real, real);
        } else {
            snprintf(say, n, "offset %llu: what came before the round of %s is lost",
                     (unsigned long long)l->at, b);
            l->uncounted++;
            span(l, real, real);
        }
        l->open = 0;
    }
    l->has_prev = 1;
    l->prev_real = real;
    l->prev_has_seq = has_seq;
    l->prev_seq = seq;
    if (compressed && l->frame_known && l->frame_off == frame_off) {
        l->frame_rounds++;
    } else {
        l->frame_known = compressed;
        l->frame_off = frame_off;
        l->frame_rounds = compressed ? 1 : 0;
    }
    return lost;
}

uint64_t loss_frame_rounds(const loss *l, uint64_t frame_off)
{
    return l->frame_known && l->frame_off == frame_off ? l->frame_rounds : 0;
}

void loss_file_end(loss *l, char *say, size_t n)
{
    say[0] = '\0';
    if (!l->open)
        return;
    if (l->has_prev) {
        char a[40];
        when(l->prev_real, a);
        snprintf(say, n, "offset %llu: what follows it to the end of the file is lost (the "
                 "last round read is of %s)", (unsigned long long)l->at, a);
        l->tail_after = l->prev_real;
    } else {
        snprintf(say, n, "offset %llu: no round of the file could be read after it",
                 (unsigned long long)l->at);
    }
    l->tail = 1;
    l->open = 0;
}

void loss_summary(const loss *l, char *say, size_t n)
{
    if (!l->lost && !l->uncounted && !l->tail) {
        snprintf(say, n, "every complete round around them was used");
        return;
    }
    char a[40], b[40], t[40], mid[160] = "", end[120] = "";
    if (l->lost || l->uncounted) {
        when(l->from, a);
        when(l->to, b);
        if (!l->uncounted)
            snprintf(mid, sizeof mid, "%llu round%s lost, between %s and %s",
                     (unsigned long long)l->lost, l->lost == 1 ? "" : "s", a, b);
        else if (l->lost)
            snprintf(mid, sizeof mid, "%llu round%s lost and more not counted, between %s and %s",
                     (unsigned long long)l->lost, l->lost == 1 ? "" : "s", a, b);
        else
            snprintf(mid, sizeof mid, "rounds lost between %s and %s (how many is not known)",
                     a, b);
    }
    if (l->tail && l->tail_after) {
        when(l->tail_after, t);
        snprintf(end, sizeof end, "what followed %s to the end of the file is lost", t);
    } else if (l->tail) {
        snprintf(end, sizeof end, "no round of the file could be read");
    }
    snprintf(say, n, "%s%s%s", mid, mid[0] && end[0] ? "; " : "", end);
}
