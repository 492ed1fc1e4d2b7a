#!/bin/sh
# Breaks one rule at a time in a scratch copy of the tree and checks that
# `make unit cli-cases` fails for each: every rule has a test that can fail.
# usage: scripts/mutate.sh, or make mutate (prints one line per mutation;
# exit 1 when a mutation survived); MUTATE_ONLY="22 " runs only the rules
# whose name begins so
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/fpmcpu-mutate.XXXXXX)
trap 'rm -rf "$work"' EXIT
survived=0 killed=0
# unoptimized: a mutant's object compiles in a third of the time, and what
# the tests ask for is the same
export CFLAGS="-O0 -g"
# one copy of the tree, built once; each mutation rebuilds what it touches
(cd "$top" && git ls-files -z | xargs -0 cp --parents -t "$work")
t=$work
# make test has just passed these tests on the same files (MUTATE_TESTED=1):
# the copy is then only built; alone, its tests run first
baseline="make -s unit cli-cases"
[ "${MUTATE_TESTED:-0}" = 1 ] && baseline=true
(cd "$t" && { make -s -j2 unit-built && $baseline; } >"$t/.log" 2>&1) ||
    { echo "the unmutated tree fails: fix that first" >&2; tail "$t/.log" >&2; exit 2; }
# the unit test of a file: test_fpmlog for formats/fpmlog_read.c, ...
first_test() {
    b=$(basename "$1" .c)
    case $b in
    out_text | out_why | out_json | out_csv | out_metrics | out_hist) b=report ;;
    out_*) b=${b#out_} ;; zahead) b=fpmlog ;; pairs | rounds | cpu_round) b=pipeline ;; seen) b=replay ;; fpmlog_feed) b=fpmlog ;;
    esac
    for n in "$b" "${b%%_*}"; do
        if [ -x "$t/bin/tests/test_$n" ]; then echo "bin/tests/test_$n"; return; fi
    done
}
# rule | file | perl substitution
while IFS='|' read -r rule file subst; do
    [ -z "$rule" ] && continue
    # MUTATE_ONLY=PREFIX: only the rules whose name begins so ("22 " for seeking)
    case $rule in "${MUTATE_ONLY:-}"*) ;; *) continue ;; esac
    cp "$t/$file" "$t/.orig"
    before=$(md5sum < "$t/$file")
    perl -0pi -e "$subst" "$t/$file"
    if [ "$(md5sum < "$t/$file")" = "$before" ]; then
        echo "NOT APPLIED  $rule"; survived=$((survived + 1)); continue
    fi
    # the unit test named after the mutated file runs first (most mutants
    # fail there, and the rest need not run); a mutant that hangs is killed:
    # timeout ends the tests' whole process group
    first=$(first_test "$file")
    # a rule of seeking's ("22 seek...") is also checked by make seek-check
    case $rule in "22 seek"*) first=seek ;; esac
    (cd "$t" && { [ -z "$first" ] || { if [ "$first" = seek ]; then make -s bin/fpm-analyze &&
        SEEK_FAIL_FAST=1 timeout 300 python3 tests/seek/seek_equal.py bin; else
        make -s "$first" && timeout 300 "$first"; fi; }; } >"$t/.log" 2>&1 &&
        make -s -j2 unit-built >>"$t/.log" 2>&1 &&
        timeout 300 make -s unit cli-cases >>"$t/.log" 2>&1)
    rc=$?
    if [ "$rc" = 0 ]; then
        echo "SURVIVED     $rule"; survived=$((survived + 1))
    elif [ "$rc" = 124 ]; then
        echo "killed       $rule -> the tests hang (stopped after 300 s)"; killed=$((killed + 1))
    elif grep -qE '^\[  FAILED  \] test_|^FAIL: ' "$t/.log"; then
        k=$(grep -E '^\[  FAILED  \] test_|^FAIL: ' "$t/.log" | head -3 | sed 's/^\[  FAILED  \] //' | tr '\n' ' ')
        echo "killed       $rule -> $k"; killed=$((killed + 1))
    elif grep -qE '\.[ch]:[0-9]+:[0-9]+: error: |undefined reference' "$t/.log"; then
        echo "NO BUILD     $rule"; survived=$((survived + 1))
        tail -3 "$t/.log"
    else
        echo "killed       $rule -> a test crashed: $(grep -E '^\[ RUN      \]' "$t/.log" | tail -1 | sed 's/.*\] //')"
        killed=$((killed + 1))
    fi
    cp "$t/.orig" "$t/$file"
    touch "$t/$file" # newer than the objects built from the mutant: make rebuilds them
done <<'LIST'
2.1 requests <= 0 is no_request|analyzer/readings.c|s/w->requests <= 0/w->requests < 0/
2.2 running keeps the counter|analyzer/readings.c|s/known \? old : uncertain/known ? RD_SEEN_RUNNING : uncertain/
2.2 idle is case-insensitive|analyzer/readings.c|s/c = \(char\)\(c - 'A' \+ 'a'\);/c = (char)(c + 0);/
2.3 same counter is a repeat|analyzer/readings.c|s/old == w->requests\)/old == w->requests \&\& 0)/
2.4 own-URI prefix|analyzer/readings.c|s/if \(is_own\(w, own\)\)/if (0 \&\& is_own(w, own))/
2.5 50 ms|analyzer/readings.h|s/RD_MIN_DURATION_US 50000/RD_MIN_DURATION_US 5000/
2.5 missing duration is invalid|analyzer/readings.c|s/return RD_INVALID;\n    if \(w->duration/return RD_ACCEPTED;\n    if (w->duration/
2.6 below 0 as written|formats/status.c|s/if \(neg && nonzero\)/if (neg \&\& nonzero \&\& 0)/
2.6 plain number only|formats/status.c|s/if \(i != n\)\n        return -1;/if (0)\n        return -1;/
2 digits past the second decimal dropped|formats/status.c|s/if \(i - f0 < 2\)/if (i - f0 < 3)/
3 bucket of a share|analyzer/hist.c|s/return \(int\)\(20 \+ \(s - 10000\) \/ 2500\);/return (int)(20 + (s - 10000) \/ 2000);/
3 halving past 4096|analyzer/hist.h|s/HIST_LIMIT   4096/HIST_LIMIT   4095/
3 percentile rank is a ceiling|analyzer/hist.c|s/\+ 99\) \/ 100/) \/ 100/
4 shape at 20 readings|analyzer/whatif.c|s/if \(pl_hist\(p\)->total < WI_MIN_READINGS\)\n        return v;\n    v.shape/if (pl_hist(p)->total < WI_MIN_READINGS - 1)\n        return v;\n    v.shape/
4 cpu-bound from 50%|analyzer/whatif.c|s/v.typical_pct >= 50/v.typical_pct > 50/
4 php millicores = typical x 10|analyzer/whatif.c|s/\(int64_t\)v.typical_pct \* 10/(int64_t)v.typical_pct * 9/
5 interval at least 5 s|analyzer/pipeline.h|s/PL_MIN_INTERVAL_NS  5000000000ull/PL_MIN_INTERVAL_NS  4000000000ull/
5 interval at most 5 min|analyzer/pipeline.h|s/300000000000ull/360000000000ull/
5 host counter must not go back|analyzer/pairs.c|s/if \(busy->v < pr->sig\[SIG_BUSY\].v \|\|/if ((busy->v < pr->sig[SIG_BUSY].v \&\& !busy_ok) ||/
5 busy excludes idle and iowait|formats/procfs.c|s/busy_fields\[6\] = \{0, 1, 2, 5, 6, 7\}/busy_fields[6] = {0, 1, 2, 4, 6, 7}/
5 quota host uses usage_usec|analyzer/signals.c|s/if \(h->quota_millicores > 0 && cg->has &&/if (h->quota_millicores > 0 \&\& 0 \&\& cg->has \&\&/
5 quota pair needs the same measure|analyzer/pairs.c|s/if \(pr->sig\[SIG_BUSY\].unit != busy->unit\)/if (pr->sig[SIG_BUSY].unit != busy->unit \&\& !busy_ok)/
5 a new pid counts its whole counter|analyzer/recover.c|s/\? w->ticks - b->ticks : w->ticks\);/? w->ticks - b->ticks : 0);/
5 fields 14 to 17|formats/procfs.c|s/for \(int f = 5; f <= 13; f\+\+\)/for (int f = 5; f <= 12; f++)/
5 every pool needs PIDS in both rounds|analyzer/cpu_round.c|s/if \(pr->seen\[i\] != pl->work\[i\].pool \|\| !pr->had_pids\[i\] \|\| !pl->work\[i\].in->has_pids\)/if (pr->seen[i] != pl->work[i].pool)/
5 saturated pairs give no point|analyzer/pipeline.h|s/PL_SATURATED        0.95/PL_SATURATED        0.96/
5 idle below 0.02 cores|analyzer/pipeline.h|s/PL_IDLE_CORES       0.02/PL_IDLE_CORES       0.03/
5 dominant at 0.7|analyzer/pipeline.h|s/PL_DOMINANT         0.7/PL_DOMINANT         0.69/
5 forgetting 0.9975|analyzer/fit.h|s/FIT_FORGET       0.9975/FIT_FORGET       0.998/
5 belief at n 30|analyzer/fit.h|s/FIT_BELIEF_N     30.0/FIT_BELIEF_N     29.0/
5 belief at sd_x 0.2|analyzer/fit.h|s/FIT_BELIEF_SD_X  0.2/FIT_BELIEF_SD_X  0.15/
5 var_x at most 1e-12 is 0|analyzer/fit.h|s/FIT_VAR_EPSILON  1e-12/FIT_VAR_EPSILON  0/
5 line needs n >= 2|analyzer/fit.c|s/f->n < 2 \|\|/f->n < 1 ||/
5 slope below 1 reads 1|analyzer/fit.c|s/l.slope < 1 \? 1 : l.slope/l.slope/
5 slope above 20 not believed|analyzer/fit.h|s/FIT_MAX_SLOPE    20.0/FIT_MAX_SLOPE    25.0/
5 cost rounds half away from zero|analyzer/whatif.c|s/\(int64_t\)round\(/(int64_t)floor(/
6 starved needs a full CPU|analyzer/pipeline.c|s/if \(hp.usable && in && hp.saturated\)/if (hp.usable \&\& in)/
6 an error round does not starve|analyzer/pipeline.c|s/w->queued = w->listen_queue > 0;/w->queued = w->listen_queue > 0 || w->errored;/
7 fill is a ceiling|analyzer/whatif.c|s/v.fill = \(\(int64_t\)hm \+ cost - 1\) \/ cost;/v.fill = (int64_t)hm \/ cost;/
7 ceiling at least cores + 1|analyzer/whatif.c|s/\+ 999\) \/ 1000 \+ 1;/+ 999) \/ 1000;/
7 headroom exact in hundredths|analyzer/whatif.c|s/\(v.fill \* headroom \+ 99\) \/ 100;/(int64_t)ceil(v.fill * (headroom \/ 100.0));/
7 limit cpu when now > ceiling|analyzer/whatif.c|s/v.now > v.ceiling \?/v.now >= v.ceiling ?/
7 host line sums|analyzer/whatif.c|s/\*now = mul_add_sat\(v\[i\].now, /*now = mul_add_sat(1, /
1 new boot forgets|analyzer/pipeline.c|s/strcmp\(h->boot_id, b\) != 0\)/strcmp(h->boot_id, b) != 0 \&\& 0)/
1 page without processes is an error|analyzer/pipeline.c|s/w->errored = prc != -2;/w->errored = prc != -2 \&\& in_rec->is_error;/
1 HOST drops the round in flight|analyzer/replay.c|s/pend_drop\(p\); \/\* a new recorder/; \/* a new recorder/
1 end of file drops the round|analyzer/replay.c|s/    if \(in_round && rc == 0\) \{/    if (in_round && rc == 0 && 0) {/
7b window start|analyzer/pipeline.c|s/r->real >= pl->opt.from_ns/r->real > pl->opt.from_ns/
log CRC check|formats/fpmlog_read.c|s/\) != crc\)/) != crc \&\& 0)/
log resync at the line after a bad header|formats/fpmlog_read.c|s/damaged\(r, dmg, soff, hlen, 1, 0, "bad record header/damaged(r, dmg, soff, hlen, 0, 0, "bad record header/
log skippable frames|formats/fpmlog_feed.c|s/\} else if \(avail >= 8 && zf_is_skippable\(p\)\) \{/} else if (0) {/
log rescan after a cut-short frame|formats/fpmlog_feed.c|s/r->scan_after_cut = 1;\n            fl_seek_input\(r, r->frame_start \+ 1\);\n            r->mode = M_SCAN;/r->mode = M_DONE;/
log one block per zstd call|formats/fpmlog_feed.c|s/if \(give > want\)/if (0)/
log ahead: one block per zstd call, as the reader alone|formats/zahead.c|s/if \(give > want\)\n            give = want;/(void)want;/
log ahead: on from the frame's end|formats/fpmlog_feed.c|s/seek_input\(r, r->frame_start \+ r->ahead_size\);/seek_input(r, r->frame_start + r->ahead_size + 1);/
log ahead: a broken frame is damage|formats/fpmlog_feed.c|s/    \} else \{\n        frame_broke\(r, why\);/    } else {\n        fl_seek_input(r, r->frame_start + r->ahead_size);\n        r->mode = M_FRAMEPOS;/
10 W adds whole milliseconds|analyzer/hist.c|s/\(uint64_t\)duration_us \/ 1000;/(uint64_t)duration_us \/ 100;/
10 share capped at 1,000,000|analyzer/hist.h|s/HIST_BUSY_MAX_SHARE 1000000 /HIST_BUSY_MAX_SHARE 2000000 /
10 duration capped at 10^9 ms|analyzer/hist.h|s/HIST_BUSY_MAX_MS    1000000000/HIST_BUSY_MAX_MS    2000000000/
10 W and C halve with the histogram|analyzer/hist.c|s/        h->busy_c \/= 2;\n//
10 busy rounds half away from zero|analyzer/hist.c|s/\(2 \* \(h->busy_c % h->busy_w\) >= h->busy_w\)/0/
10 busy millicores from C and W|analyzer/hist.c|s/\(2 \* \(h->busy_c % w10\) >= w10\)/0/
10 busy null under 20 readings|analyzer/whatif.c|s/    if \(pl_hist\(p\)->total < WI_MIN_READINGS\)\n        return v;/    v.has_busy = hist_busy(pl_hist(p), \&v.busy_hundredths, \&v.busy_millicores) == 0;\n    if (pl_hist(p)->total < WI_MIN_READINGS)\n        return v;/
10 --cost busy uses busy millicores|analyzer/whatif.c|s/cost_of == WI_COST_BUSY && v.has_busy \?/cost_of == WI_COST_BUSY \&\& !v.has_busy ?/
10 the WHY at 1.5x|analyzer/out_why.c|s/2 \* v->busy_millicores >= 3 \* v->php_millicores/v->busy_millicores >= 2 * v->php_millicores/
9 error rounds counted|analyzer/pipeline.c|s/    p->error_rounds\+\+;//
5 dropped pairs counted by why|analyzer/pairs.c|s/            h->pairs_dropped\[drop\]\+\+;/            h->pairs_usable++;/
numbers that do not fit are invalid|formats/procfs.c|s/            if \(x > \(UINT64_MAX - d\) \/ 10\)\n                return -1;[^\n]*\n//
POOL max_children range-checked|analyzer/pipeline.c|s/mc <= PL_MAX_CHILDREN \?/1 ?/
gnuplot strings double a single quote|analyzer/out_plot.c|s/            out\[o\+\+\] = '\\'';\n            out\[o\+\+\] = '\\'';/            out[o++] = '\\'';/
1 seq copies are dropped|analyzer/replay.c|s/if \(st->has_seq && seq <= st->seq\)/if (0 \&\& st->has_seq \&\& seq <= st->seq)/
1 a new run counts seq from 1|analyzer/replay.c|s/        st->has_seq = 0; \/\* a new recorder run counts from 1 \*\///
log raw bytes in SOURCE are damage|formats/fpmlog_read.c|s/\(unsigned char\)f\[4\]\[i\] <= 0x20 \|\| f\[4\]\[i\] == 0x7F/(unsigned char)f[4][i] < 0x20/
9 percentile by nearest rank|analyzer/pairs.c|s/\(s->n % 100 \* q\[k\] \+ 99\) \/ 100/(s->n % 100 * q[k]) \/ 100/
9 share capped at 100%|analyzer/signals.c|s/if \(num >= den\)\n        return SIG_SHARE_MAX;/if (num > den * 2)\n        return SIG_SHARE_MAX;/
9 share half away from zero|analyzer/signals.c|s/\+ den\) \/ \(2 \* den\)/) \/ (2 * den)/
9 the 10-period floor|analyzer/signals.c|s/THROTTLE_MIN_PERIODS 10/THROTTLE_MIN_PERIODS 9/
9 steal needs 8 numbers|formats/procfs.c|s/cpu_line_of\(buf, len, name, f\) < 8/cpu_line_of(buf, len, name, f) < 7/
9 the quota host's pressure source|analyzer/signals.c|s/r->rec\[h->quota_millicores > 0 \? PL_REC_CPU_PRESSURE : PL_REC_PRESSURE\]/r->rec[h->quota_millicores > 0 \&\& 0 ? PL_REC_CPU_PRESSURE : PL_REC_PRESSURE]/
9 php_accounted needs PIDS in both rounds|analyzer/signals.c|s/if \(!p->pids_complete \|\| b->v <= a->v\)/if (b->v <= a->v)/
9 starved-by-steal on STAT hosts only|analyzer/pairs.c|s/if \(hp->sig\[SIG_BUSY\].unit != 0 \|\| /if (/
9 starved-by-steal below 0.95|analyzer/pairs.c|s/return \(u128\)own \* 100000000000000u <\n/return (u128)own * 100000000000000u <=\n/
9 throttled rounds need throttling|analyzer/pipeline.c|s/ \|\| hp->grew\[SIG_THROTTLED\] == 0\)/)/
9 unanswered needs an error|analyzer/pipeline.c|s/        if \(w->errored\) \{/        if (1) {/
9 the probe minus the run delay|analyzer/pairs.c|s/gap > delay \? gap - delay : 0/gap > delay ? gap : 0/
9 throttled seconds only from shares|analyzer/pairs.c|s/if \(hp->has_value\[SIG_THROTTLED\] && hp->sig/if (hp->sig/
9 check: a host's p90 rise past the tolerance|analyzer/out_check.c|s/if \(up > tol\) \{\n            char now\[ESC_HUNDREDTHS\];\n            fprintf\(out, "%s: %s p90/if (up > tol + 1) {\n            char now[ESC_HUNDREDTHS];\n            fprintf(out, "%s: %s p90/
no output over an input|analyzer/outfile.c|s/strcmp\(inputs\[i\].path, path\) == 0/strcmp(inputs[i].path, path) == 256/
no output over an input's inode|analyzer/outfile.c|s/inputs\[i\].dev == st->st_dev/0/
no output over a file that begins like a log|analyzer/outfile.c|s/    if \(log\) \{/    if (log \&\& 0) {/
an output path checked before the replay|analyzer/main.c|s/    rc = check_outputs\(&cfg\);/    rc = 0 * check_outputs(\&cfg);/
the recorder locks its log|recorder/logfile.c|s/    \} else if \(lock_log\(fd, err, errlen\) != 0\) \{/    } else if (lock_log(fd, err, errlen) != 0 \&\& 0) {/
an adopted empty log is made 0600|recorder/logfile.c|s/st.st_size == 0 && \(st.st_mode & 077\) && fchmod/0 \&\& fchmod/
csv: nested objects flattened as KEY_SUBKEY|analyzer/out_csv.c|s/prefix\[0\] \? "_" : ""/prefix[0] ? "." : ""/
csv: the schema version in every row|analyzer/out_csv.c|s/#define CSV_SCHEMA 2/#define CSV_SCHEMA 3/
numbers from outside in their range|common/numarg.c|s/ \|\| x < lo \|\| x > hi\)\n        return -1;\n    \*v = x;\n    return 0;\n\}\n\nint num_real/ || x < lo || x > hi + hi)\n        return -1;\n    *v = x;\n    return 0;\n}\n\nint num_real/
numbers from outside: no sign or space strtoll would take|common/numarg.c|s/    if \(!\(\(\*s >= '0' && \*s <= '9'\) \|\| \(\*s == '-' && lo < 0\)\)\)\n        return -1;/    if (!*s)\n        return -1;/
the applier refuses an unnamed HOST at once|analyzer/applier.c|s/    if \(!pipeline_host_named\(payload, len\)\)\n        return -1;\n//
the applier refuses a POOL before any HOST|analyzer/applier.c|s/return a->has_host \? record\(a, K_POOL, name, name_len, payload, len\) : -1;/return record(a, K_POOL, name, name_len, payload, len);/
a problem said once until it changes|common/msg.c|s/    if \(strncmp\(o->last, now, sizeof o->last - 1\) == 0\)\n        return 0;\n//
recorder: a round starts an interval after the last STAT|recorder/record.c|s/    if \(last_stat && next < last_stat \+ interval\)/    if (0 \&\& last_stat \&\& next < last_stat + interval)/
11.1 a worker is its pid and start time|analyzer/recover.c|s/before->start == now->start\);/1);/
11.1 a line without field 22 is matched by pid alone|analyzer/recover.c|s/\(before->start < 0 \|\| now->start < 0 \|\| before->start == now->start\)/(before->start == now->start)/
11.2 lost shared by the workers that left|analyzer/recover.c|s/        if \(left > 0\)\n/        if (0)\n/
11.2 else by the pools' cores|analyzer/recover.c|s/else if \(own > 0\)/else if (own > 0 \&\& 0)/
11.2 else not assigned at all|analyzer/recover.c|s/else if \(own > 0\)\n            p->recovered \+= lost \* p->own_ticks \/ own;/else\n            p->recovered += own > 0 ? lost * p->own_ticks \/ own : lost \/ (double)n;/
11.2 the carry is min(d, 0)|analyzer/recover.c|s/m->carry = d < 0 \? d : 0;/m->carry = 0;/
11.2 the carry starts again with another master|analyzer/recover.c|s/cur->v\[i\].carry = b && same_master\(b, &cur->v\[i\]\) \? b->carry : 0;/cur->v[i].carry = b ? b->carry : 0;/
11.2 no share when the master's counter went back|analyzer/recover.c|s/if \(m->child < b->child\)\n            continue;/if (0)\n            continue;/
11.2 a MASTER line that does not parse is left out|analyzer/recover.c|s/    procfs_each_pid\(\(const char \*\)p, len, add_master, &c\);/    if (procfs_each_pid((const char *)p, len, add_master, \&c))\n        l->n = 0;/
11.2 the recovered ticks count in the pool's cores|analyzer/cpu_round.c|s/double t = \(double\)w->ticks \+ w->recovered;/double t = (double)w->ticks;/
11.3 no dominance rule: every pool its cores|analyzer/cpu_round.c|s/pl->x\[pl->work\[i\].pool->jx\] = pl->work\[i\].cores;/if (pl->work[i].cores >= 0.7 * total) pl->x[pl->work[i].pool->jx] = pl->work[i].cores;/
11.3 inconsistent over 1.1 x host + 0.1|analyzer/joint.h|s/JOINT_INCONSISTENT  1.1/JOINT_INCONSISTENT  1.2/
11.4 0.9975 per 300 s|analyzer/joint.h|s/JOINT_FORGET_S      300.0/JOINT_FORGET_S      30.0/
11.4 decay by the pair's interval|analyzer/cpu_round.c|s/joint_decay\(hp->interval\)/joint_decay(300)/
11.5 a pool joins with C_pp over 1e-12|analyzer/joint.c|s/if \(!\(cpp > JOINT_VAR_EPSILON\)\)\n            continue;/if (0)\n            continue;/
11.5 a pool joins with a pivot over 1e-6 C_pp|analyzer/joint.c|s/if \(pivot > JOINT_PIVOT \* cpp\)/if (pivot > -1)/
11.5 k is the active set plus one|analyzer/joint.c|s/double kk = \(double\)na \+ 1/double kk = (double)na/
11.5 the floor on s2|analyzer/joint.c|s/return r <= JOINT_S2_FLOOR \* vy \|\| !\(r > 0\) \? 0 :/return !(r > 0) ? 0 :/
11.5 se from s2 (C^-1)_pp / n|analyzer/joint.c|s/p->se = sqrt\(s2 \* inv\[r\] \/ z.n\);/p->se = sqrt(s2 * inv[r]);/
11.5 partial sd sqrt(1 / (C^-1)_pp)|analyzer/joint.c|s/p->partial_sd = sqrt\(1 \/ inv\[r\]\);/p->partial_sd = sqrt(inv[r]);/
11.5 belief needs n >= 30|analyzer/joint.h|s/JOINT_BELIEF_N      30.0/JOINT_BELIEF_N      3.0/
11.5 belief needs se <= 5% of max(slope, 1)|analyzer/joint.c|s/se <= JOINT_SE \* \(slope > 1 \? slope : 1\)/se <= JOINT_SE * (slope > 1 ? slope : 1) + 1e9/
11.5 belief needs a slope <= 20|analyzer/joint.c|s/n >= JOINT_BELIEF_N && slope <= JOINT_MAX_SLOPE &&/n >= JOINT_BELIEF_N \&\&/
11.5 belief needs a partial sd >= 0.01|analyzer/joint.c|s/p->believed = p->partial_sd >= JOINT_PARTIAL_SD && /p->believed = /
11.5 the common line needs sd_x >= 0.2|analyzer/joint.c|s/sol->common_believed = sol->common_sd_x >= JOINT_COMMON_SD_X &&/sol->common_believed =/
11.5 the host's common line when a pool's own is not believed|analyzer/whatif.c|s/\} else if \(sol->common_exists && sol->common_believed\) \{/} else if (0) {/
11.5 --fit dominant sizes by section 5|analyzer/whatif.c|s/if \(fit == WI_FIT_DOMINANT \|\| !jp \|\| !sol\)/if (!jp || !sol)/
12.1 the queue is the larger of the page's and the kernel's|analyzer/activity.c|s/return kernel > q \? kernel : q;/return q >= 0 ? q : kernel;/
12.1 a kernel queue while the CPU is full is starved|analyzer/pipeline.c|s/w->queued = w->listen_queue > 0;/w->queued = pg \&\& pg->has_listen_queue \&\& pg->listen_queue > 0;/
12.2 all busy: active processes >= max_children|analyzer/activity.c|s/pg->active >= max_children/pg->active > max_children/
12.2 ran out of workers under one start time|analyzer/activity.c|s/a->has_prev && a->prev_start == start && /a->has_prev \&\& /
12.2 cores from pairs with the PIDS in both rounds|analyzer/cpu_round.c|s/if \(in && w->pids_both\) \{/if (in) {/
12.3 contended readings stay out of the calm set|analyzer/pipeline.c|s/if \(!c->contended\)\n            hist_add/if (1)\n            hist_add/
12.3 the calm set's figures from 20 readings|analyzer/pipeline.c|s/p->calm.total >= PL_MIN_READINGS/p->calm.total >= PL_MIN_READINGS - 1/
12.4 rule 1: 0 requests is remembered with 0|analyzer/readings.c|s/rc = pidmap_put\(scratch, w->pid, 0\);/rc = 0;/
12.4 rule 2: a running pid is remembered as seen running|analyzer/readings.c|s/uncertain \? RD_UNKNOWN : RD_SEEN_RUNNING/uncertain ? RD_UNKNOWN : 0/
12.4 rule 3: started at or after the previous round|analyzer/readings.c|s/start >= prev->real_s/start > prev->real_s/
12.4 rule 3: the pool's previous page round|analyzer/pipeline.c|s/        p->status_before = \(rd_before\)\{1, \(int64_t\)\(r->real \/ 1000000000u\)\};\n//
12.4 rule 3: no start time keeps the old rule|analyzer/readings.c|s/status_worker_start\(w, &start\) == 0 && start >= 0/(status_worker_start(w, \&start) == 0 || (start = 0, 1)) \&\& start >= 0/
22 seek: frames whose rounds are outside the window|analyzer/seek.c|s/return sum->rounds == 0 \|\|/return 1 ||/
22 seek: a summary checked against its frame's size|analyzer/seek.c|s/            sum.frame_bytes == len\) \{/            1) {/
22 seek: the frame before ends between rounds|analyzer/seek.c|s/fr.may_skip = ok && clean && /fr.may_skip = ok \&\& (clean || 1) \&\& /
22 seek: times in order with the neighbours'|analyzer/seek.c|s/fr->may_skip = 0;\n        before = fr;/before = fr;/
22 seek: twice as many frames when a window needs more|analyzer/seek.c|s/r->prime \? r->prime \* 2 : 1/r->prime ? r->prime + 1 : 1/
22 seek: a window round after a jump needs the round before|analyzer/pipeline.c|s/    if \(in && h->unsettled_prev\)\n/    if (0)\n/
22 seek: a page after a jump needs the page before|analyzer/pipeline.c|s/        if \(in && p->unsettled_page\)\n/        if (0)\n/
22 seek: a page after a jump needs the activity's page before|analyzer/pipeline.c|s/            if \(in && p->unsettled_act\)\n/            if (0)\n/
22 seek: PIDS after a jump need the PIDS before|analyzer/pipeline.c|s/            if \(in\)\n                pl_need\(pl, p->skip_id\);\n            p->unsettled_pids = 0;/            p->unsettled_pids = 0;/
22 seek: an idle worker judged on an unknown counter|analyzer/pipeline.c|s/if \(in && \(unsure & 1\)\)/if (0)/
22 seek: a running worker of an unsure map is unknown|analyzer/readings.c|s/uncertain \? RD_UNKNOWN : RD_SEEN_RUNNING/RD_SEEN_RUNNING/
22 seek: a reboot settles the counters and PIDS|analyzer/pipeline.c|s/        p->unsettled_pids = p->seen_uncertain = p->unknowns = 0;\n//
22 seek: jumped pools are named|analyzer/replay.c|s/        rc = pipeline_skipped_pool\(c->st->pl, sum->hostname/        rc = 0 \&\& pipeline_skipped_pool(c->st->pl, sum->hostname/
22 summary: a frame ending inside a round is not seekable|formats/fpmsum.c|s/put_kv\(b, "seekable", !a->mixed && !a->in_round\)/put_kv(b, "seekable", !a->mixed)/
22 summary: rounds of two hostnames are not seekable|formats/fpmsum.c|s/memcmp\(a->fhost, a->host, a->host_len\)\)\)\n        a->mixed = 1;/memcmp(a->fhost, a->host, a->host_len)))\n        a->mixed = 0;/
22 summary: its size must be the skippable frame's|formats/fpmsum.c|s/if \(size \+ 8 != n \|\| /if ((size + 8 != n \&\& 0) || /
22 summary: the records in force when the frame begins|formats/fpmsum.c|s/    if \(a->fresh\) \{\n        a->fresh = 0;\n        if \(snapshot_start\(a\) != 0\)\n            return -1;\n    \}/    a->fresh = 0;/
22 reader: a skippable frame's size must lead to a frame or a record|formats/fpmlog_feed.c|s/        r->after_skippable = 0;\n        if \(avail < 8/        r->after_skippable = 0;\n        if (0) if (avail < 8/
22 recorder: a summary cut short is removed on start|recorder/logfile.c|s/ \|\|\n                zf_skippable_size\(m\) > size - off\)/)/
22 seek cut: a pool named only by frames left out gets a POOL|analyzer/cut.c|s/if \(rc == 0 && !known\)/if (0)/
22 seek cut: a round a reader drops is not copied|analyzer/cut.c|s/return rc == 0 && release\(c, 0\) \? -1 : rc;/return rc == 0 \&\& release(c, 1) ? -1 : rc;/
LIST
echo "mutations: $killed killed, $survived survived"
[ "$survived" -eq 0 ]
