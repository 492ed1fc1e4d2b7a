/* The window's plan: which frames --from/--until need (window.h). */
#include "rc.h"
#include "window.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "replay.h"

/* Whether the environment asks for every frame to be read
 * (FPM_ANALYZE_FULL_READ=1: the tests compare both ways). */
int window_full_read(void)
{
    const char *v = getenv("FPM_ANALYZE_FULL_READ");
    return v && *v && strcmp(v, "0") != 0;
}

/* --from/--until: which frames the window needs, planned by tries on
 * pipelines of their own (nothing said, nothing exported) until no round of
 * the window meets what a jump left unknown.  NULL: every frame is read (no
 * window, the full read forced, or memory ran out). */
seek *window_plan(const pl_options *opt, char *const *logs, int nlogs)
{
    if ((!opt->has_from && !opt->has_until) || window_full_read())
        return NULL;
    seek *sk = seek_new(opt->has_from, opt->from_ns, opt->has_until, opt->until_ns);
    for (int i = 0; sk && i < nlogs; i++) {
        uint64_t at;
        const char *why;
        if (seek_add(sk, logs[i]) != 0) {
            seek_free(sk);
            sk = NULL;
        } else if ((why = seek_index_damage(sk, (size_t)i, &at))) {
            char what[160];
            snprintf(what, sizeof what, "damaged index (%s), its frames found by reading them",
                     why);
            msg_damage(logs[i], at, 0, 0, what);
        }
    }
    if (!sk)
        return NULL;
    seek_plan(sk);
    FILE *quiet = fopen("/dev/null", "w");
    if (quiet)
        msg_stream(quiet);
    int tries = 0;
    for (;; tries++) {
        pipeline *pl = pipeline_new(opt);
        replay *rp = pl ? replay_new(pl, 1) : NULL;
        int ok = rp != NULL;
        if (rp) {
            replay_set_seek(rp, sk);
            for (int i = 0; ok && i < nlogs; i++)
                ok = replay_file(rp, logs[i], 0) != FPM_ENOMEM;
        }
        const uint64_t *ids;
        size_t n = ok ? pipeline_unsettled(pl, &ids) : 0;
        if (n == (size_t)-1)
            ok = 0, n = 0; /* read everything */
        int more = n && seek_more(sk, ids, n);
        replay_free(rp);
        pipeline_free(pl);
        if (!ok) {
            seek_free(sk);
            sk = NULL;
        }
        if (!ok || !more)
            break;
    }
    tries++;
    msg_stream(NULL);
    if (quiet)
        fclose(quiet);
    const char *say = getenv("FPM_ANALYZE_SEEK_STATS");
    if (sk && say && *say) { /* for the tests and make bench */
        seek_stats st = seek_stats_of(sk);
        msg_warnx("seek: %llu of %llu frames read (%llu of %llu bytes), after %d tries; "
                  "%llu frames from indexes",
                  (unsigned long long)(st.frames - st.skipped), (unsigned long long)st.frames,
                  (unsigned long long)(st.bytes - st.skipped_bytes),
                  (unsigned long long)st.bytes, tries, (unsigned long long)st.indexed);
    }
    return sk;
}

