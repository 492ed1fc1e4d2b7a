/* The text's WHY of a pool: its shape, the arithmetic of its row in short
 * sentences and where its overhead comes from, or why it has no readings
 * and what it did all the same; then its rounds of note. */
#include "why.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accessfmt.h"
#include "escape.h"

void out_cores_text(char *b, size_t n, uint64_t mc)
{
    if (mc % 1000 == 0)
        snprintf(b, n, "%llu core%s", (unsigned long long)(mc / 1000), mc == 1000 ? "" : "s");
    else
        snprintf(b, n, "%g cores", (double)mc / 1000.0);
}



/* 12.2 in a sentence, for a pool without a cost: what it did all the same. */
static void why_activity(FILE *out, const pl_pool *p)
{
    const pl_activity *a = &p->act;
    if (!a->pairs && !a->full_rounds && !a->maxed_rounds)
        return;
    fputs(" It ran all the same:", out);
    const char *sep = "";
    if (a->pairs && a->seconds > 0) {
        fprintf(out, " %.2f cores on average, %.2f at most", a->core_seconds / a->seconds,
                a->cores_max);
        sep = ";";
    }
    if (a->full_rounds && p->max_children > 0) {
        fprintf(out, "%s all %lld workers busy in %llu round%s", sep, (long long)p->max_children,
                (unsigned long long)a->full_rounds, a->full_rounds == 1 ? "" : "s");
        sep = ";";
    }
    if (a->maxed_rounds)
        fprintf(out, "%s out of workers in %llu round%s", sep,
                (unsigned long long)a->maxed_rounds, a->maxed_rounds == 1 ? "" : "s");
    fputc('.', out);
}

/* 17.3: how long its requests waited for the CPU, where the kernel said;
 * 12.3: readings taken while the CPU was full, where it did not. */
static void why_contention(FILE *out, const pl_pool *p, const wi_view *v)
{
    double waited = p->want_us > 0 ? p->wait_us / p->want_us : 0;
    if (p->corrected_readings && waited >= WT_CONTENDED)
        fprintf(out, " Its requests waited for the CPU %.0f%% of the time they wanted it; their "
                     "own shares are corrected.", 100 * waited);
    /* 17.8: a worker's wait is its average over the pair, the wait to be
     * woken after accept() included: its busy share can pass 100% */
    if (p->corrected_readings && v->has_busy && v->busy_hundredths > 10000)
        fprintf(out, " Its busy share reads %lld.%02lld%%, above 100%%: its workers queued for "
                     "the CPU, and the wake-up waits are charged to its requests (it errs "
                     "toward fewer workers).",
                (long long)(v->busy_hundredths / 100), (long long)(v->busy_hundredths % 100));
    uint64_t n = p->uncorrected_contended;
    if (!n)
        return;
    if (pl_under_contention(p))
        fprintf(out, " Measured under contention: %llu of its readings came while the CPU was "
                     "full, when each request also waited for it, so its shares are a floor.",
                (unsigned long long)n);
    else
        fprintf(out, " %llu reading%s taken while the CPU was full (each request also waiting "
                     "for it) %s left out of its figures.",
                (unsigned long long)n, n == 1 ? "" : "s", n == 1 ? "is" : "are");
}

/* Why a pool has no reading yet: the filter that took its finished requests. */
static void why_no_readings(FILE *out, const pl_pool *p, uint64_t rounds)
{
    const uint64_t *f = p->filtered;
    if (rounds > 0 && p->error_rounds == rounds) {
        fprintf(out, "no readings: its status page could not be read in any of its %llu "
                     "round%s.", (unsigned long long)rounds, rounds == 1 ? "" : "s");
        return;
    }
    if (f[RD_SHORT] >= f[RD_OWN] && f[RD_SHORT] >= f[RD_INVALID] && f[RD_SHORT] > 0)
        fprintf(out, "no readings: every request that finished was under 50 ms (%llu), too "
                     "short for its CPU share to mean anything.",
                (unsigned long long)f[RD_SHORT]);
    else if (f[RD_OWN] >= f[RD_INVALID] && f[RD_OWN] > 0)
        fprintf(out, "no readings: only monitoring requests finished (%llu own, such as the "
                     "recorder's status requests). Visitors' requests count once they come.",
                (unsigned long long)f[RD_OWN]);
    else if (f[RD_INVALID] > 0)
        fprintf(out, "no readings: php-fpm gave no usable CPU share (%llu invalid).",
                (unsigned long long)f[RD_INVALID]);
    else if (f[RD_RUNNING] > 0 && f[RD_RUNNING] >= f[RD_PRIMED])
        fputs("no readings: its workers were running a request at every round, so none "
              "finished where the recorder could see it.", out);
    else if (f[RD_PRIMED] > 0)
        fprintf(out, "no readings: the requests on its first page had finished before the "
                     "recording began (%llu primed), and none finished since.",
                (unsigned long long)f[RD_PRIMED]);
    else
        fputs("no readings: no request finished while it was recorded.", out);
    why_activity(out, p);
}

/* Section 11: where the overhead used comes from, or why there is none. */
static void why_joint(FILE *out, const wi_view *v)
{
    const joint_pool *j = &v->joint;
    if (v->source == WI_SRC_OWN && j->se < 0.005)
        fprintf(out, " (%.2fx +-<0.01, from its own load).", v->overhead);
    else if (v->source == WI_SRC_OWN)
        fprintf(out, " (%.2fx +-%.2f, from its own load).", v->overhead, j->se);
    else if (v->source == WI_SRC_HOST)
        fprintf(out, " (%.2fx, the host's average: its own load never moved apart from its "
                     "neighbours').", v->overhead);
    else if (v->joint_n < 1)
        fputs(", at PHP's own cost: no round pair measured the pools' CPU beside the host's "
              "yet, so its host overhead is not measured.", out);
    else if (v->joint_n < JOINT_BELIEF_N)
        fprintf(out, ", at PHP's own cost: host overhead not measured yet (fit n=%.1f of %.0f).",
                v->joint_n, JOINT_BELIEF_N);
    else if (!j->in_a)
        fputs(", at PHP's own cost: its load never moved apart from its neighbours' and the "
              "host's average is not known either.", out);
    else if (j->slope > JOINT_MAX_SLOPE)
        fprintf(out, ", at PHP's own cost: a host slope of %.1f is not believed, the pool's "
                     "load moves with something else.", j->slope);
    else
        fprintf(out, ", at PHP's own cost: its overhead %.2fx +-%.2f is not known to 10%% yet.",
                j->slope, j->se);
    if (v->source != WI_SRC_NONE && v->line.believed &&
        fabs(v->line.overhead / v->overhead - 1) > 0.2)
        fprintf(out, " --fit dominant reads %.2fx.", v->line.overhead);
}

/* The fill sentence's reason for the cost it used. */
static void why_cost(FILE *out, const wi_view *v)
{
    if (v->fit == WI_FIT_JOINT) {
        why_joint(out, v);
        return;
    }
    if (v->line.believed)
        fprintf(out, " (%.2fx PHP's own with the rest of the host counted, --fit dominant).",
                v->line.overhead);
    else if (v->line.exists && v->line.n >= FIT_BELIEF_N && v->line.sd_x >= FIT_BELIEF_SD_X)
        fprintf(out, ", at PHP's own cost: a host slope of %.1f is not believed, the pool's "
                     "load moves with something else.", v->line.slope);
    else if (v->line.n >= FIT_BELIEF_N)
        fputs(", at PHP's own cost: the pool's load never varied enough to measure the "
              "host's overhead.", out);
    else if (v->line.n < 1)
        fputs(", at PHP's own cost: the pool never ran alone or dominant, so its host "
              "overhead is not measured.", out);
    else
        fprintf(out, ", at PHP's own cost: host overhead not measured yet (fit n=%.1f of %.0f).",
                v->line.n, FIT_BELIEF_N);
}

/* The WHY's sentences of what its rounds saw: the CPU left with exited
 * workers, the rounds it queued or could not answer, its errors. */
static void why_rounds(FILE *out, const pl_pool *p, const wi_view *v, const why_ctx *c)
{
    if (v->has_recovered && v->recovered_pct >= 1)
        fprintf(out, " %.0f%% of its CPU left with workers that exited between rounds, and "
                     "came back from its master.", v->recovered_pct);
    if (p->starved)
        fprintf(out, " Queued in %llu round%s while the CPU was full.",
                (unsigned long long)p->starved, p->starved == 1 ? "" : "s");
    if (p->starved_by_steal)
        fprintf(out, " In %llu of them the CPU was full only with the hypervisor's steal.",
                (unsigned long long)p->starved_by_steal);
    if (p->throttled_rounds)
        fprintf(out, " Queued in %llu round%s while its quota throttled it.",
                (unsigned long long)p->throttled_rounds, p->throttled_rounds == 1 ? "" : "s");
    if (p->unanswered_full) { /* docs/rules.md 13.1 */
        uint64_t n = p->unanswered_full, u = p->unanswered_unseen;
        fprintf(out, " Its status page could not answer in %llu round%s while the CPU was full",
                (unsigned long long)n, n == 1 ? "" : "s");
        if (p->unanswered_queue_max >= 0)
            fprintf(out, "; the kernel's queue held up to %lld connection%s then",
                    (long long)p->unanswered_queue_max, p->unanswered_queue_max == 1 ? "" : "s");
        if (u == n)
            fputs(", so its queue then went unseen.", out);
        else if (u)
            fprintf(out, "; in %llu of them its queue went unseen.", (unsigned long long)u);
        else
            fputc('.', out);
    }
    if (p->error_rounds && !(pl_hist(p)->total == 0 && p->error_rounds == c->rounds))
        fprintf(out, " Its status page could not be read in %llu of %llu rounds.",
                (unsigned long long)p->error_rounds, (unsigned long long)c->rounds);
    if (p->error_rounds && p->last_error[0])
        fprintf(out, " Last error: %s.", p->last_error);
}

/* 14.4, 14.5: what a worker holds (measured, or estimated), how many fit,
 * and which ceiling binds the advice, by how much.  Nothing for a pool
 * without memory figures (a log without STATM). */
static void why_memory(FILE *out, const pl_pool *p, const wi_view *v, const why_ctx *c)
{
    if (v->w_source == WI_W_NONE)
        return;
    if (v->w_source == WI_W_ESTIMATED)
        fprintf(out, " Too few memory readings yet (%u of %d): a worker counts at ~%lld MiB, "
                     "the most one held (an estimate: it counts the pool beside the others, "
                     "never cuts it).", p->mem.total, MEM_MIN_READINGS, (long long)v->w_mib);
    else
        fprintf(out, " A worker holds ~%lld MiB (private pages and its request's peak, 95th "
                     "percentile).", (long long)v->w_mib);
    if (!v->sized && v->now_guessed && v->mem_now > 0)
        fprintf(out, " pm.max_children unknown: held at the %lld workers it had at most in one "
                     "round.", (long long)v->mem_now);
    if (!c->has_budget) {
        fputs(" No MEMINFO in the window: no memory ceiling.", out);
        return;
    }
    if (v->no_advice == WI_NA_OTHER_W) {
        fputs(" A pool beside it has workers and no memory figures at all: no memory ceiling.",
              out);
        return;
    }
    if (v->mem_ceiling >= 0)
        fprintf(out, " %lld fit beside the other pools in the %.2f GiB the host can give "
                     "php-fpm.", (long long)v->mem_ceiling, (double)c->budget / (1024.0 * 1024 * 1024));
    if (v->advice < 0) { /* the reasons the sentences above have not said */
        if (v->no_advice == WI_NA_NO_ROOM || v->no_advice == WI_NA_NO_CEILING ||
            v->no_advice == WI_NA_FLOOR)
            fprintf(out, " No advice: %s.", whatif_no_advice_text(v->no_advice));
        return;
    }
    if (v->binds == WI_BINDS_MEMORY)
        fprintf(out, " Advice %lld: memory binds, %lld below the CPU's ceiling of %lld.",
                (long long)v->advice, (long long)(v->ceiling - v->advice),
                (long long)v->ceiling);
    else
        fprintf(out, " Advice %lld: the CPU binds; memory holds %lld.", (long long)v->advice,
                (long long)v->mem_ceiling);
    if (v->limit == WI_LIMIT_MEMORY || v->limit == WI_LIMIT_CPU)
        fprintf(out, " pm.max_children %lld is past it.", (long long)v->now);
}

int why_share(FILE *out, const char *hn, const wi_view *v, size_t n, const pl_pool *const *pools,
              const wi_memory *m)
{
    if (!m->shared)
        return 0;
    double gib = 1024.0 * 1024 * 1024, bs = m->sized_budget > 0 ? (double)m->sized_budget : 0;
    fprintf(out, "host %s: the pools' CPU ceilings need %.2f GiB of the %.2f GiB php-fpm can "
                 "have", hn, (double)m->ceilings_bytes / gib, bs / gib);
    const char *sep = " beside the held pools (";
    for (size_t i = 0; i < n; i++) {
        if (!v[i].with_workers || v[i].sized)
            continue;
        size_t w = 0;
        char *name = esc_display_name(pools[i]->name, pools[i]->name_len, &w);
        fprintf(out, "%s%s", sep, name ? name : "?");
        free(name);
        sep = ", ";
    }
    if (sep[0] == ',')
        fputc(')', out);
    if (m->binds == WI_BINDS_CPU)
        fputs(": each gets its CPU ceiling.\n", out);
    else if (m->room_hundredths > 0 || m->needs_hundredths == 100)
        fprintf(out, ": each keeps what it was seen to use and gets %lld%% of the room above "
                     "it.\n", (long long)m->room_hundredths);
    else
        fprintf(out, ": each gets %lld%% of what it was seen to use.\n",
                (long long)m->needs_hundredths);
    return 1;
}

/* 19.4: the pool's first route, when it computes at least half its CPU:
 * "`/checkout` computes 62% of its CPU, 140 ms a request." */
static void why_routes(FILE *out, const wi_view *v)
{
    const rt_fig *f = v->routes;
    if (v->nroutes == 0)
        return;
    if (!f[0].other && f[0].cpu_share_h >= 5000) {
        char *name = esc_display_name(f[0].name, f[0].len, NULL);
        fprintf(out, " `%s` computes %lld%% of its CPU, %lld ms a request.", name ? name : "?",
                (long long)((f[0].cpu_share_h + 50) / 100), (long long)((f[0].cpu_ms_h + 50) / 100));
        free(name);
    }
}

/* n with a comma between each three digits: 12,345 */
static void thousands(char *b, size_t size, uint64_t n)
{
    char d[24];
    int len = snprintf(d, sizeof d, "%llu", (unsigned long long)n), o = 0;
    for (int i = 0; i < len && (size_t)o + 2 < size; i++) {
        if (i && (len - i) % 3 == 0)
            b[o++] = ',';
        b[o++] = d[i];
    }
    b[o] = '\0';
}

/* 20.7: a censused pool's WHY begins with what its access log counted:
 * "every request from its access log (12,345 requests, 41.20 a second;
 * p50 120 ms, p95 480 ms)." */
static void why_census(FILE *out, const wi_view *v)
{
    char n[32];
    thousands(n, sizeof n, v->requests);
    fprintf(out, "every request from its access log (%s request%s", n, v->requests == 1 ? "" : "s");
    if (v->rps_hundredths >= 0)
        fprintf(out, ", %lld.%02lld a second", (long long)(v->rps_hundredths / 100),
                (long long)(v->rps_hundredths % 100));
    if (v->has_measured)
        fprintf(out, "; p50 %lld ms, p95 %lld ms", (long long)v->measured_p50,
                (long long)v->measured_p95);
    fputs("). ", out);
}

/* 20.7: a pool not censused whose access log's format is unusable, or
 * whose page shows a front controller (its first route /index.php with
 * half its CPU or more): the access.format line that would census it */
static void why_census_hint(FILE *out, const pl_pool *p, const wi_view *v)
{
    if (v->censused)
        return;
    const rt_fig *f = v->routes;
    int front = v->nroutes && !f[0].other && f[0].len == 10 &&
                memcmp(f[0].name, "/index.php", 10) == 0 && f[0].cpu_share_h >= 5000;
    if (p->has_access)
        fprintf(out, " Its access log cannot be read (%s): with access.format = \"%s\" it "
                     "would count every request.",
                p->access_format ? p->fmt.reason : "no access.format", AF_CENSUS_FORMAT);
    else if (front)
        fputs(" Every page ran /index.php, a front controller: its access log, with "
              "access.format = \"" AF_CENSUS_FORMAT "\", would count every request by the "
              "visitor's URI.", out);
}

/* The WHY: the arithmetic of the row in short sentences, one idea each. */
void why_text(FILE *out, const pl_pool *p, const wi_view *v, const why_ctx *c)
{
    char cores[48];
    if (v->censused)
        why_census(out, v);
    if (!v->shape) {
        if (pl_hist(p)->total == 0)
            why_no_readings(out, p, c->rounds);
        else
            fprintf(out, "too few readings yet (%u of %d).", pl_hist(p)->total, WI_MIN_READINGS);
        goto tail;
    }
    fprintf(out, "%s.", v->shape);
    if (v->host_millicores_per_worker <= 0) {
        fputs(" A busy worker costs under 5% of a core, so the CPU sets no ceiling.", out);
        goto tail;
    }
    if (c->hm == 0) {
        fputs(" The host's size is unknown, so no fill or ceiling.", out);
        goto tail;
    }
    if (v->floor) { /* 17.4 */
        fputs(" Measured while it waited for the CPU and its waits were not recorded: no "
              "ceiling from shares that are floors.", out);
        goto median;
    }
    out_cores_text(cores, sizeof cores, c->hm);
    fprintf(out, " ~%lld busy worker%s fill%s %s", (long long)v->fill, v->fill == 1 ? "" : "s",
            v->fill == 1 ? "s" : "", cores);
    why_cost(out, v);
    fprintf(out, " The knee is at %lld.%02lld: past it more workers add only latency.",
            (long long)(v->knee_hundredths / 100), (long long)(v->knee_hundredths % 100));
    fprintf(out, " Ceiling %lld", (long long)v->ceiling);
    if (v->ceiling_by_headroom)
        fprintf(out, ": with that many busy, each request takes at most %d.%02dx as long as "
                     "alone", c->headroom / 100, c->headroom % 100);
    fputc('.', out);
    if (v->now > v->ceiling) /* the CPU's side: section 7 */
        fprintf(out, " pm.max_children %lld is past it.", (long long)v->now);
    else if (v->now > 0)
        fprintf(out, " pm.max_children %lld is within it: the pool runs out of workers before "
                     "the host runs out of CPU.", (long long)v->now);
    else
        fputs(" pm.max_children unknown.", out);
    if (v->predicts && v->sharing != WI_SHARE_THREADS) { /* 18.6 */
        fputs(" Its predicted p50 and p95 (advise): ", out);
        whatif_sharing_text(out, v->sharing, v->rest_out_mc);
        fputc('.', out);
    }
median:
    if (v->has_busy && v->busy_millicores > 0 && 2 * v->busy_millicores >= 3 * v->php_millicores)
        fprintf(out, " The median hides heavy requests: a busy worker costs ~%lldm, not %lldm%s.",
                (long long)v->busy_millicores, (long long)v->php_millicores,
                c->cost == WI_COST_BUSY ? " (TYPICAL's; the busy cost sizes it)"
                                        : "; the default, --cost busy, sizes the pool by it");
tail:
    why_routes(out, v);
    why_census_hint(out, p, v);
    why_memory(out, p, v, c);
    why_contention(out, p, v);
    why_rounds(out, p, v, c);
}

