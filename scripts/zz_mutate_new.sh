#!/bin/sh
# Breaks one rule at a time in a scratch copy of the tree and checks that
# `make unit cli` fails for each: every rule has a test that can fail.
# usage: scripts/mutate.sh, or make mutate (prints one line per mutation;
# exit 1 when a mutation survived)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/fpmcpu-mutate.XXXXXX)
trap 'rm -rf "$work"' EXIT
survived=0 killed=0
# one copy of the tree, built once; each mutation rebuilds what it touches
(cd "$top" && git ls-files -z | xargs -0 cp --parents -t "$work")
t=$work
(cd "$t" && make -s unit cli >"$t/.log" 2>&1) ||
    { echo "the unmutated tree fails: fix that first" >&2; tail "$t/.log" >&2; exit 2; }
# rule | file | perl substitution
while IFS='|' read -r rule file subst; do
    [ -z "$rule" ] && continue
    cp "$t/$file" "$t/.orig"
    before=$(md5sum < "$t/$file")
    perl -0pi -e "$subst" "$t/$file"
    if [ "$(md5sum < "$t/$file")" = "$before" ]; then
        echo "NOT APPLIED  $rule"; survived=$((survived + 1)); continue
    fi
    if (cd "$t" && make -s unit cli >"$t/.log" 2>&1); then
        echo "SURVIVED     $rule"; survived=$((survived + 1))
    elif ! grep -qE '^\[  FAILED  \] test_|^FAIL: ' "$t/.log"; then
        echo "NO BUILD     $rule"; survived=$((survived + 1))
        tail -3 "$t/.log"
    else
        k=$(grep -E '^\[  FAILED  \] test_|^FAIL: ' "$t/.log" | head -3 | sed 's/^\[  FAILED  \] //' | tr '\n' ' ')
        echo "killed       $rule -> $k"; killed=$((killed + 1))
    fi
    cp "$t/.orig" "$t/$file"
    touch "$t/$file" # newer than the objects built from the mutant: make rebuilds them
done <<'LIST'
1 seq copies are dropped|analyzer/replay.c|s/if \(st->has_seq && seq <= st->seq\)/if (0 \&\& st->has_seq \&\& seq <= st->seq)/
1 a new run counts seq from 1|analyzer/replay.c|s/        st->has_seq = 0; \/\* a new recorder run counts from 1 \*\///
log raw bytes in SOURCE are damage|formats/fpmlog_read.c|s/\(unsigned char\)f\[4\]\[i\] <= 0x20 \|\| f\[4\]\[i\] == 0x7F/(unsigned char)f[4][i] < 0x20/
9 percentile by nearest rank|analyzer/pipeline.c|s/\(s->n % 100 \* q\[k\] \+ 99\) \/ 100/(s->n % 100 * q[k]) \/ 100/
9 share capped at 100%|analyzer/signals.c|s/if \(num >= den\)\n        return SIG_SHARE_MAX;/if (num > den * 2)\n        return SIG_SHARE_MAX;/
9 share half away from zero|analyzer/signals.c|s/\+ den\) \/ \(2 \* den\)/) \/ (2 * den)/
9 the 10-period floor|analyzer/signals.c|s/THROTTLE_MIN_PERIODS 10/THROTTLE_MIN_PERIODS 9/
9 steal needs 8 numbers|formats/procfs.c|s/cpu_line\(buf, len, f\) < 8/cpu_line(buf, len, f) < 7/
9 the quota host's pressure source|analyzer/signals.c|s/int quota = h->quota_millicores > 0;/int quota = 0;/
9 php_accounted needs PIDS in both rounds|analyzer/signals.c|s/if \(!p->pids_complete \|\| b->v <= a->v\)/if (b->v <= a->v)/
9 starved-by-steal on STAT hosts only|analyzer/pipeline.c|s/if \(hp->sig\[SIG_BUSY\].unit != 0 \|\| /if (/
9 starved-by-steal below 0.95|analyzer/pipeline.c|s/return \(u128\)own \* 100000000000000u <\n/return (u128)own * 100000000000000u <=\n/
9 throttled rounds need throttling|analyzer/pipeline.c|s/ \|\| hp->grew\[SIG_THROTTLED\] == 0\)/)/
9 unanswered needs an error|analyzer/pipeline.c|s/        if \(w->errored\) \{/        if (1) {/
9 the probe minus the run delay|analyzer/pipeline.c|s/gap > delay \? gap - delay : 0/gap/
9 throttled seconds only from shares|analyzer/pipeline.c|s/if \(hp->has_value\[SIG_THROTTLED\] && hp->sig/if (hp->sig/
LIST
echo "mutations: $killed killed, $survived survived"
[ "$survived" -eq 0 ]
