/* fpm-record: reads php-fpm's status pages and the CPU counters every
 * interval and appends them, raw, to an fpmlog (record.c); -n checks the
 * pools; fpm-record steal runs the steal probe alone. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "config.h"
#include "fcgi.h"
#include "msg.h"
#include "record.h"
#include "status.h"
#include "stealcmd.h"

static void on_stop(int sig) { rec_stop_signal = sig; }
static void on_hup(int sig) { (void)sig; rec_hup = 1; }

static void catch_signals(void)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_stop;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = on_hup;
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* What to do about a pool's read error, or NULL. */
static const char *hint_for(const char *err, int http)
{
    if (http == 404)
        return "php-fpm does not serve this path: set pm.status_path to it in the pool "
               "and reload php-fpm";
    if (http)
        return "the endpoint answers, but not with a status page: is it php-fpm's?";
    if (strstr(err, "No such file or directory"))
        return "no socket there: is php-fpm running, and is this the pool's listen "
               "(or pm.status_listen)?";
    if (strstr(err, "Connection refused"))
        return "nothing listens there: is php-fpm running?";
    if (strstr(err, "Permission denied"))
        return "run as a user that may open the socket (the pool's listen.owner, "
               "listen.group and listen.mode)";
    if (strstr(err, "timed out"))
        return "no answer in time: every worker busy? a pm.status_listen answers even then";
    return NULL;
}

/* -n: every pool answers with a status page, and what bounds php-fpm's
 * CPU.  Exit 0 when all do, 1 when one does not. */
static int check_config(rec_config *cfg, const char *pid_file)
{
    int bad = 0;
    for (size_t i = 0; i < cfg->npools; i++) {
        rec_pool *pool = &cfg->pools[i];
        const char *ep = config_status_endpoint(pool);
        fcgi_response resp;
        char err[600];
        status_page pg = {0};
        const char *hint = NULL;
        printf("pool %s", pool->c.name);
        if (pool->c.where)
            printf(" (%s)", pool->c.where);
        printf(": %s %s: ", ep, pool->c.status_path);
        if (fcgi_get(ep, pool->c.status_path, "json&full", (int)cfg->timeout_ms, FCGI_MAX_BODY, &resp,
                     err, sizeof err) != 0) {
            printf("%s\n", err);
            hint = hint_for(err, 0);
            bad = 1;
        } else if (resp.status != 200 || status_parse(&pg, (char *)resp.body, resp.body_len) != 0) {
            printf("HTTP %d, no status page (%.*s)\n", resp.status,
                   (int)strcspn((char *)resp.body, "\r\n"), (char *)resp.body);
            hint = hint_for("", resp.status ? resp.status : 1);
            bad = 1;
        } else if (pg.has_pool && (strlen(pool->c.name) != pg.pool_len ||
                                   memcmp(pool->c.name, pg.pool, pg.pool_len) != 0)) {
            printf("this is the status page of pool \"%.*s\", not of %s\n", (int)pg.pool_len,
                   pg.pool, pool->c.name);
            hint = "give --pool the name php-fpm reports (its [section] name), or the "
                   "endpoint of this pool";
            bad = 1;
        } else {
            printf("ok, %zu workers\n", pg.nworkers);
        }
        if (hint)
            printf("  fix: %s\n", hint);
        char why[1024];
        if (access_why_sample(pool, why, sizeof why))
            printf("  %s\n", why);
        else
            printf("  access log %s: every request counted (its access.format is usable)\n",
                   pool->c.access_log);
        status_page_free(&pg);
        free(resp.body);
    }
    recorder_say_bounds(cfg, pid_file, stdout);
    printf(bad ? "configuration has problems\n" : "configuration OK\n");
    return bad;
}

int main(int argc, char **argv)
{
    msg_init(PROG);
    if (argc > 1 && strcmp(argv[1], "steal") == 0)
        return steal_command(argc - 1, argv + 1);
    rec_config cfg = {0};
    char *pid_file = NULL;
    int rc = config_parse_args(argc, argv, &cfg);
    if (rc < 0)
        rc = cfg.fpm_config && config_load_pools(&cfg, &pid_file) != 0 ? 2 : -1;
    if (rc < 0 && cfg.check)
        rc = check_config(&cfg, pid_file);
    if (rc < 0) {
        catch_signals();
        recorder *r = recorder_new(&cfg, pid_file, &rec_system_clock);
        pid_file = NULL; /* the recorder's now */
        if (!r) {
            msg_warn("cannot start");
            rc = 2;
        } else {
            rc = recorder_run(r);
        }
        recorder_free(r);
    }
    free(pid_file);
    config_pools_free(cfg.pools, cfg.npools);
    return rc;
}
