/* The gnuplot script's plots of one pool: the histogram, the fit, the time
 * series with its lower panel, the memory and the bounds; the datablocks
 * they draw; and gnuplot run on the script (plot_int.h). */
#define _POSIX_C_SOURCE 200809L
#include "plot_int.h"
#include "plot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rc.h"

#include "fit.h"
#include "hist.h"

void plot_quote(char *out, const char *name, size_t len)
{
    size_t o = 0;
    out[o++] = '\'';
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c == '\'') {
            out[o++] = '\'';
            out[o++] = '\'';
        } else if (c < 0x20 || c == 0x7F) {
            out[o++] = '?';
        } else {
            out[o++] = (char)c;
        }
    }
    out[o++] = '\'';
    out[o] = '\0';
}

/* The time series' lower panel: the signals PL_SIGNALS' plot names, each
 * from its column (8 on) where a pair gave one. */
static void lower_panel(FILE *gp, const plot_pool *q)
{
    fputs("set title 'the host under it: ", gp);
    const char *sep = "";
    for (int k = 0; k < SIG_N; k++)
        if (PL_SIGNALS[k].plot) {
            fprintf(gp, "%s%s", sep, PL_SIGNALS[k].plot_short);
            sep = " and ";
        }
    /* the lower third; its key to the right, beside the lines */
    fputs("'\nset origin 0,0\nset size 1,0.34\nunset y2label\nunset y2tics\nunset xlabel\n"
          "set key outside right top vertical\nset ylabel '% of the time'\nset yrange [0:*]\n"
          "plot ", gp);
    sep = "";
    for (int k = 0, col = 8; k < SIG_N; k++) {
        if (!PL_SIGNALS[k].plot)
            continue;
        if (q->nshown[k]) {
            fprintf(gp, "%s$series using 1:%d with lines title '%s'", sep, col, PL_SIGNALS[k].plot);
            sep = ", ";
        }
        col++;
    }
    fputs("\nunset multiplot\n", gp);
}

/* An empty panel that says why, where a plot has no data. */
static void empty(FILE *gp, const char *why)
{
    fprintf(gp, "set xrange [0:1]\nset yrange [0:1]\nunset xtics\nunset ytics\nunset y2tics\n"
                "set label 1 '%s' at graph 0.5, 0.5 center\nplot NaN notitle\nunset label 1\n",
            why);
}

/* The fit plot: what the joint fit saw of the pool (its cores against the
 * host's less the other pools' part), its line and a +-2 se band about the
 * points' centre. */
static void fit_plot(FILE *gp, const plot_pool *q)
{
    const joint_pool *j = &q->jp;
    fputs("set title 'Host CPU against the pool''s, the other pools'' part taken out: '.name "
          "noenhanced\nset xlabel 'pool cores'\nset ylabel 'host busy cores less the other "
          "pools'' part'\nset grid\nset key below\nset yrange [0:*]\n", gp);
    /* an idle pool's cores are all 0: a 0..1 axis, not gnuplot's -1..1 */
    fprintf(gp, q->max_x > 0 ? "set xrange [0:*]\n" : "set xrange [0:1]\n");
    if (q->npoints == 0) {
        empty(gp, "no round pair gave the joint fit a point yet");
        return;
    }
    if (!q->sol.exists || !j->in_a) {
        fputs("plot $points using 1:2 with points pt 7 ps 0.6 title 'round pairs (no line of "
              "its own: its load never moved apart from its neighbours'')'\n", gp);
        return;
    }
    double m = q->sum_x / (double)q->npoints, b = q->sol.base, c = b + j->slope * m;
    fprintf(gp, "plot $points using 1:2 with points pt 7 ps 0.6 title 'round pairs', "
                "[0:*] %.6f + %.6f * x with lines lw 2 title sprintf('base %%.2f cores, "
                "overhead %%.2fx +-%%.3f%s', %.6f, %.6f, %.6f), "
                "[0:*] %.6f + %.6f * (x - %.6f) with lines dt 2 lc rgb 'gray40' title '+-2 se', "
                "[0:*] %.6f + %.6f * (x - %.6f) with lines dt 2 lc rgb 'gray40' notitle\n",
            b, j->slope, j->believed ? "" : " (not believed yet)", b, j->slope, j->se,
            c, j->slope + 2 * j->se, m, c, j->slope - 2 * j->se, m);
}

/* The memory plot (section 14): above, the pool's memory readings by
 * bucket, W's bucket in its own colour; below, the host's memory over
 * time, php-fpm's and the rest's stacked, against M and what php-fpm can
 * be given (B). */
static void memory_plot(FILE *gp, const plot_pool *q)
{
    fputs("set multiplot layout 2,1\n"
          "set title 'Memory a worker holds (its private pages and its request''s peak): '.name "
          "noenhanced\nset xlabel 'MiB, at most (each bucket''s top)'\nset ylabel 'readings'\n"
          "set style fill solid 0.7\nset boxwidth 0.8\nset grid ytics\nset key top right\n"
          "set offsets 0,0,graph 0.2,0\nset xtics rotate by -90 font ',9'\n", gp);
    if (q->p->mem.total == 0)
        empty(gp, "no memory readings (a log without STATM)");
    else if (q->w_mib >= 0)
        fprintf(gp, "plot $memhist using 0:2:xtic(4) with boxes lc rgb '#0072b2' notitle, "
                    "$memhist using 0:3 with boxes lc rgb '#d55e00' "
                    "title 'W = %lld MiB: the 95th percentile, rounded up'\n",
                (long long)q->w_mib);
    else
        fprintf(gp, "plot $memhist using 0:2:xtic(4) with boxes lc rgb '#0072b2' "
                    "title '%u readings: W needs 20'\n", q->p->mem.total);
    fputs("reset\nset title 'The host''s memory: php-fpm''s and the rest''s; php-fpm can have "
          "what the rest left at its largest, less a tenth'\nset xdata time\nset timefmt '%s'\n"
          "set xlabel 'UTC'\nset ylabel 'GiB'\nset grid\nset key below horizontal maxrows 2 "
          "font ',9'\n", gp);
    if (q->has_budget)
        fprintf(gp, "set yrange [0:%.4f]\n", 1.35 * q->total / 1073741824.0);
    else
        fputs("set yrange [0:*]\n", gp);
    double span = q->t1 - q->t0;
    fprintf(gp, "set format x '%s'\n", span < 1200 ? "%H:%M:%S" : span < 172800 ? "%H:%M"
                                      : span < 345600 ? "%m-%d %H:%M" : "%m-%d");
    if (q->nmem == 0) {
        empty(gp, "no MEMINFO in the log");
        fputs("unset multiplot\n", gp);
        return;
    }
    double gib = 1073741824.0;
    fputs("plot $memory using 1:($2 + $3) with filledcurves x1 lc rgb '#56b4e9' "
          "title 'the rest of the host', "
          "$memory using 1:2 with filledcurves x1 lc rgb '#e69f00' title 'php-fpm', "
          "$memory using 1:4 with lines lw 2 lc rgb '#cc79a7' title 'this pool''s workers'", gp);
    if (q->has_budget)
        fprintf(gp, ", %.4f with lines lw 2 dt 2 lc rgb 'black' title 'php-fpm can have "
                    "%.2f GiB', %.4f with lines lc rgb 'gray40' title 'memory %.2f GiB'",
                q->budget / gib, q->budget / gib, q->total / gib, q->total / gib);
    fputs("\nunset multiplot\n", gp);
}

double plot_bounds_top(const plot_pool *q)
{
    double top = 2 * q->knee + 1;
    if (q->now > top)
        top = (double)q->now;
    if (q->advice > top)
        top = (double)q->advice;
    return top < 4 ? 4 : top;
}

/* The bounds plot (15.1): for N busy workers, the most requests a second
 * and the least time each takes, the knee marked, and where now and the
 * advice put the pool; beside the bound, the p50 and p95 each request is
 * predicted to take (section 18). */
static void bounds_plot(FILE *gp, const plot_pool *q)
{
    fputs("set title 'What N busy workers can give: '.name.' (bounds, and the times "
          "predicted)' "
          "noenhanced\nset xlabel 'busy workers'\nset ylabel 'requests a second, at most'\n"
          "set y2label 'ms a request: the least, and predicted'\nset ytics nomirror\nset y2tics\n"
          "set grid\nset key below horizontal\nset y2range [0:*]\n", gp);
    if (!q->has_model) {
        empty(gp, "no bounds: no shape or no cost measured yet");
        return;
    }
    double top = plot_bounds_top(q);
    if (q->npred) { /* numbers only: nothing of the log reaches the script */
        fputs("$pred << EOD\n", gp);
        for (size_t i = 0; i < q->npred; i++)
            fprintf(gp, "%.2f %lld %lld\n", q->pred_n[i], (long long)q->pred_p50[i],
                    (long long)q->pred_p95[i]);
        fputs("EOD\n", gp);
    }
    fprintf(gp, "R = %.6f\nD = %.6f\nC = %.6f\nknee = %.4f\n"
                "rps(n) = n / R < C / D ? n / R : C / D\n"
                "ms(n) = 1000 * (R > n * D / C ? R : n * D / C)\n"
                "set xrange [0:%.0f]\nset samples 400\nset yrange [0:1.2 * C / D]\n"
                "set arrow 1 from knee, graph 0 to knee, graph 1 nohead dt 2 lc rgb 'gray40'\n"
                "set label 1 sprintf(' the knee, %%.2f: past it more workers only wait', knee) "
                "at knee, graph 0.95 left\n",
            q->r, q->d, q->c, q->knee, top + 1);
    /* what now and the advice give, beside their markers */
    int64_t at[2] = {q->now, q->advice};
    for (int k = 0; k < 2; k++)
        if (at[k] > 0)
            fprintf(gp, "set label %d sprintf(' %s %lld: %%.1f req/s, %%.0f ms ', rps(%lld), "
                        "ms(%lld)) at %lld, rps(%lld) %s offset 0,%s font ',9'\n",
                    k + 2, k ? "advice" : "now", (long long)at[k], (long long)at[k],
                    (long long)at[k], (long long)at[k], (long long)at[k],
                    (double)at[k] > top / 2 ? "right" : "left", k ? "-1" : "1");
    fputs("plot rps(x) with lines lw 2 lc rgb '#0072b2' title 'requests a second, at most', "
          "ms(x) axes x1y2 with lines lw 2 lc rgb '#e69f00' title 'ms a request, at least'", gp);
    if (q->npred)
        fputs(", $pred using 1:2 axes x1y2 with linespoints pt 7 ps 0.6 lc rgb '#d55e00' "
              "title 'p50 ms predicted', $pred using 1:3 axes x1y2 with linespoints pt 7 "
              "ps 0.6 dt 2 lc rgb '#cc79a7' title 'p95 ms predicted'", gp);
    if (q->now > 0)
        fprintf(gp, ", '+' using (%lld):(rps(%lld)) every ::0::0 with points pt 7 ps 1.5 "
                    "lc rgb 'black' title 'pm.max_children now (%lld)'",
                (long long)q->now, (long long)q->now, (long long)q->now);
    if (q->advice > 0)
        fprintf(gp, ", '+' using (%lld):(rps(%lld)) every ::0::0 with points pt 5 ps 1.5 "
                    "lc rgb '#009e73' title 'the advice (%lld)'",
                (long long)q->advice, (long long)q->advice, (long long)q->advice);
    fputc('\n', gp);
}

void plot_draw(FILE *gp, const char *term, const char *ext, const plot_pool *q)
{
    const char *base = q->base;
    fprintf(gp, "reset\nset terminal %s noenhanced\n", term);
    fprintf(gp, "set output '%s-hist.%s'\n", base, ext);
    fputs("set title 'CPU share of requests: '.name noenhanced\n"
          "set xlabel 'CPU time over wall time (bucket floors: 5% wide to 100%, then 25%, then 100%)' noenhanced\n"
          "set ylabel 'requests'\nset style fill solid 0.6\nset boxwidth 0.8\n"
          "set xtics rotate by -90 noenhanced font ',9'\nset grid ytics\n"
          "plot $hist using 0:2:xtic(3) with boxes notitle\n", gp);
    fprintf(gp, "reset\nset output '%s-fit.%s'\n", base, ext);
    fit_plot(gp, q);
    fprintf(gp, "reset\nset output '%s-series.%s'\n", base, ext);
    fputs("set title 'CPU, workers and queue over time: '.name noenhanced\n"
          "set xdata time\nset timefmt '%s'\nset xlabel 'UTC'\n"
          "set ylabel 'cores'\nset yrange [0:*]\n"
          "set y2label 'workers, queue'\nset ytics nomirror\nset y2tics\n"
          "set grid\nset key below horizontal maxrows 2\n", gp);
    /* labels that do not repeat: seconds on a short log, dates on a long one */
    double span = q->t1 - q->t0;
    fprintf(gp, "set format x '%s'\n", span < 1200 ? "%H:%M:%S" : span < 172800 ? "%H:%M"
                                      : span < 345600 ? "%m-%d %H:%M" : "%m-%d");
    int64_t top = q->queue_max > q->active_max ? q->queue_max : q->active_max;
    if (q->p->max_children > top)
        top = q->p->max_children;
    fprintf(gp, "set y2range [0:%lld]\n", (long long)(top > 0 ? top + 1 : 1));
    int truth = 0;
    for (int k = 0; k < SIG_N; k++)
        truth |= q->nusable && q->nshown[k];
    if (truth) /* steal and pressure in a panel below, the upper two thirds for the rest */
        fputs("set multiplot\nset origin 0,0.34\nset size 1,0.66\n", gp);
    if (q->nusable == 0)
        empty(gp, "no usable round pair (5 s to 5 min apart) yet");
    else
        /* one colour each, far apart and safe for colour-blind readers
         * (Okabe and Ito's palette): cores blue and orange, the queue green */
        fputs("plot $series using 1:2 with lines lw 2 lc rgb '#0072b2' title 'host busy cores', "
              "$series using 1:3 with lines lw 2 lc rgb '#e69f00' title 'pool cores', "
              "$series using 1:4 axes x1y2 with steps lc rgb '#009e73' title 'listen queue', "
              "$series using 1:($5 > 0 ? $2 : NaN) with points pt 7 ps 1.2 lc rgb 'black' "
              "title 'starved', "
              "$series using 1:($6 > 0 ? $2 : NaN) with points pt 6 ps 1.6 lc rgb '#d55e00' "
              "title 'inconsistent pair', "
              "$series using 1:7 axes x1y2 with steps lw 2 lc rgb '#cc79a7' "
              "title 'busy workers'", gp);
    if (q->nusable && q->p->max_children > 0)
        fprintf(gp, ", %lld axes x1y2 with lines dt 2 lc rgb 'gray40' title "
                    "'pm.max_children'", (long long)q->p->max_children);
    if (q->nusable)
        fputc('\n', gp);
    if (truth)
        lower_panel(gp, q);
    fprintf(gp, "reset\nset output '%s-memory.%s'\n", base, ext);
    memory_plot(gp, q);
    fprintf(gp, "reset\nset output '%s-bounds.%s'\n", base, ext);
    bounds_plot(gp, q);
    fputs("set output\n", gp);
}

#define PLOT_COLS 32

int plot_datablock(FILE *gp, FILE *dat, const char *name, size_t k, int most)
{
    fprintf(gp, "$%s << EOD\n", name);
    char *line = NULL;
    size_t cap = 0, seen = 0;
    int ncol = 0;
    double acc[PLOT_COLS];
    while (getline(&line, &cap, dat) > 0) {
        if (line[0] == '#') {
            fputs(line, gp);
            continue;
        }
        if (!most) {
            if (seen++ % k == 0)
                fputs(line, gp);
            continue;
        }
        char *s = line, *e;
        int c = 0;
        for (double x; c < PLOT_COLS && (x = strtod(s, &e), e != s); s = e, c++) {
            if (seen % k == 0)
                acc[c] = x;
            else if (c > 0 && !isnan(x) && (isnan(acc[c]) || x > acc[c]))
                acc[c] = x;
        }
        if (seen % k == 0)
            ncol = c;
        if (++seen % k == 0) {
            fprintf(gp, "%.3f", acc[0]);
            for (int j = 1; j < ncol; j++)
                fprintf(gp, isnan(acc[j]) ? " NaN" : " %.4f", acc[j]);
            fputc('\n', gp);
        }
    }
    if (most && seen % k) { /* the last, shorter span */
        fprintf(gp, "%.3f", acc[0]);
        for (int j = 1; j < ncol; j++)
            fprintf(gp, isnan(acc[j]) ? " NaN" : " %.4f", acc[j]);
        fputc('\n', gp);
    }
    free(line);
    fputs("EOD\n", gp);
    return ferror(dat) ? FPM_EFAIL : 0;
}

/* Runs gnuplot in dir on the script, fed through a pipe.  0 ok, 1 gnuplot
 * is not installed, -1 it failed. */
int plot_run_gnuplot(const char *dir, const char *script)
{
    int fd[2];
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, script);
    FILE *in = fopen(path, "r");
    if (!in || pipe(fd) != 0) {
        if (in)
            fclose(in);
        return FPM_EFAIL;
    }
    pid_t pid = fork();
    if (pid < 0) {
        fclose(in);
        close(fd[0]);
        close(fd[1]);
        return FPM_EFAIL;
    }
    if (pid == 0) {
        dup2(fd[0], 0);
        close(fd[0]);
        close(fd[1]);
        if (chdir(dir) != 0)
            _exit(126);
        int log = open("gnuplot.log", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW |
                       O_NONBLOCK | O_NOCTTY, 0644);
        if (log >= 0)
            dup2(log, 2);
        char *const argv[] = {"gnuplot", NULL};
        execvp("gnuplot", argv);
        _exit(127);
    }
    close(fd[0]);
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (write(fd[1], buf, n) != (ssize_t)n)
            break;
    fclose(in);
    close(fd[1]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    signal(SIGPIPE, old);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return 1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}
