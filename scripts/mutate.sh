#!/bin/sh
# Breaks one rule at a time in a scratch copy of the tree and checks that
# the tests fail for each: every rule has a test that can fail.  Cheapest
# first: the test that killed the rule's mutant last time, when
# scripts/mutate.first names one (scripts/mutate-learn.py writes it from a
# run's report; a stale hint costs only its own run); then the unit test
# named after the mutated file; for a rule of seeking
# ("22 seek...") then make seek-check; for a file without a unit test the CLI
# cases; then the CLI cases and every unit test.  MUTATE_JOBS copies of the
# tree (default the CPUs + 2) take the rules one after the other, each the
# next one left when it is free; each line ends with how long its mutant
# took, in tenths of a second.
# usage: scripts/mutate.sh, or make mutate (prints one line per mutation;
# exit 1 when a mutation survived); MUTATE_ONLY="22 " runs only the rules
# whose name begins so.  scripts/mutate.sh --prepare DIR only builds the
# trees into DIR (make test does it while the integration scripts that
# measure wait on their rounds); MUTATE_WORK=DIR then takes them as built.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
prepare_only=""
if [ "${1:-}" = --prepare ]; then
    prepare_only=1
    rm -rf "$2" && mkdir -p "$2" && work=$(cd "$2" && pwd)
elif [ -n "${MUTATE_WORK:-}" ] && [ -e "$MUTATE_WORK/.ready" ]; then
    work=$(cd "$MUTATE_WORK" && pwd)
else
    work=$(mktemp -d /tmp/fpmcpu-mutate.XXXXXX)
fi
[ -n "$prepare_only" ] || trap 'rm -rf "$work"' EXIT
# two more jobs than CPUs: a mutant's build waits on its files as often as not,
# and beside other load each job gets its share
jobs=${MUTATE_JOBS:-$(( $(nproc) + 2 ))}
# unoptimized and without debug information: a mutant's object compiles in
# a third of the time, and what the tests ask for is the same
export CFLAGS="-O0"
# the rules: rule | file | perl substitution (scripts/mutate.list)
list=$top/scripts/mutate.list
# make test has just passed these tests on the same files (MUTATE_TESTED=1):
# the copies are then only built; alone, the first one's tests run first
baseline="make -s unit cli-cases"
[ "${MUTATE_TESTED:-0}" = 1 ] && baseline=true
# the tree built once (0, never mutated), and a copy of it per job; each
# mutation rebuilds what it touches, and after it the files it rebuilt are
# put back from tree 0, times and all, so that the next one rebuilds nothing
# of it
if [ ! -e "$work/.ready" ]; then
    mkdir "$work/0"
    (cd "$top" && git ls-files -z | xargs -0 cp --parents -t "$work/0")
    (cd "$work/0" && { make -s -j2 unit-built && $baseline; } >"$work/0/.log" 2>&1) ||
        { echo "the unmutated tree fails: fix that first" >&2; tail "$work/0/.log" >&2; exit 2; }
    for k in $(seq 1 "$jobs"); do cp -a "$work/0" "$work/$k"; done
    touch "$work/.ready"
fi
[ -z "$prepare_only" ] || exit 0

# the unit tests of a file: test_fpmlog for formats/fpmlog_read.c, ...
first_test() {
    b=$(basename "$1")
    b=${b%.[ch]}
    case $b in
    text | why | json | csv | metrics | histview | activity_view) b=report ;; window) b=seek ;;
    zahead) b=fpmlog ;; pairs | rounds | readings_round) b=pipeline ;; seen | pending) b=replay ;; fpmlog_feed) b=fpmlog ;;
    cpu_round) echo "bin/tests/test_pipeline bin/tests/test_activity bin/tests/test_recover"; return ;;
    esac
    for n in "$b" "${b%%_*}"; do
        if [ -x "$t/bin/tests/test_$n" ]; then echo "bin/tests/test_$n"; return; fi
    done
}

# A mutated header's constant: the source files that name what its changed
# lines name (a #define's or an enum's names).  Where only .c files do,
# they are touched and the header keeps its old time, so the hint rebuilds
# those objects alone, not every object that includes the header; where
# another header names them too, nothing is narrowed.  Prints the touched
# files (their times are put back after the mutant).
narrow_header() {
    names=$(diff "$work/0/$1" "$t/$1" | sed -n 's/^[<>] //p' |
        grep -oE '[A-Z][A-Z0-9_]{2,}' | sort -u | tr '\n' '|')
    names=${names%|}
    [ -n "$names" ] || return 0
    users=$(cd "$t" && grep -rlwE "$names" --include='*.c' --include='*.h' \
        common formats recorder analyzer tests | grep -vx "$1")
    case $users in *.h*) return 0 ;; esac
    touch -r "$work/0/$1" "$t/$1"
    for u in $users; do touch "$t/$u"; echo "$u"; done
}

# seek-check on the analyzer of the current tree, stopped at the first
# window that differs; $1: only those logs (a hint's), else all of them
seek_equal() {
    make -s -j2 bin/fpm-analyze &&
        SEEK_FAIL_FAST=1 SEEK_ONLY="${1:-}" timeout 300 python3 tests/seek/seek_equal.py bin
}

# One mutation in tree $t: its line of the report on standard output.
mutate_one() {
    rule=$1 file=$2 subst=$3
    before=$(md5sum < "$t/$file")
    touch "$t/.stamp"
    sleep 0.01 # whatever the mutant rebuilds is newer than the stamp
    perl -0pi -e "$subst" "$t/$file"
    if [ "$(md5sum < "$t/$file")" = "$before" ]; then
        echo "NOT APPLIED  $rule"; cp -a "$work/0/$file" "$t/$file"; return
    fi
    # a mutant that hangs is killed: timeout ends the tests' whole process group
    # the test that killed this rule's mutant last time (scripts/mutate.first),
    # first: most mutants die there in seconds
    hint=$(awk -F'\t' -v r="$rule" '$1 == r { print $2; exit }' "${MUTATE_FIRST:-$top/scripts/mutate.first}" 2>/dev/null)
    hrc=0 narrowed=""
    case $file in *.h) [ -n "$hint" ] && narrowed=$(narrow_header "$file") ;; esac
    if [ -n "$hint" ]; then
        (cd "$t" && case $hint in
            cli:*) make -s -j2 bin/fpm-analyze bin/fpm-record && timeout 300 tests/cli/run.sh --only "${hint#cli:}" ;;
            seek:*) seek_equal "${hint#seek:}" ;;
            *) make -s -j2 "$hint" && timeout 300 "$hint" ;;
            esac) >"$t/.log" 2>&1
        hrc=$? # 0: it lived through its hint, and the whole chain follows
    fi
    # the chain rebuilds everything the header touches
    [ -n "$narrowed" ] && [ "$hrc" = 0 ] && touch "$t/$file"
    first=$(first_test "$file")
    seekcheck=true
    case $rule in "22 seek"*) seekcheck=seek_equal ;; esac
    if [ -z "$first" ] && [ "$seekcheck" != true ]; then first=$seekcheck seekcheck=true; fi
    [ -z "$first" ] && first=cli
    if [ "$hrc" != 0 ]; then
        rc=$hrc
    else
    (cd "$t" && {
        # on two jobs: a mutated header rebuilds every object that includes it
        case $first in
        cli) make -s -j2 bin/fpm-analyze bin/fpm-record && timeout 300 tests/cli/run.sh ;;
        bin/*) make -s -j2 $first && for x in $first; do timeout 300 "$x" || exit $?; done ;;
        *) $first ;;
        esac
    } >"$t/.log" 2>&1 && $seekcheck >>"$t/.log" 2>&1 &&
        timeout 300 make -s -j2 cli-cases >>"$t/.log" 2>&1 &&
        make -s -j2 unit-built >>"$t/.log" 2>&1 &&
        timeout 300 make -s unit >>"$t/.log" 2>&1)
    rc=$?
    fi
    if [ "$rc" = 0 ]; then
        echo "SURVIVED     $rule"
    elif [ "$rc" = 124 ]; then
        echo "killed       $rule -> the tests hang (stopped after 300 s)"
    elif grep -qE '^\[  FAILED  \] test_|^FAIL: ' "$t/.log"; then
        k=$(grep -E '^\[  FAILED  \] test_|^FAIL: ' "$t/.log" | head -3 | sed 's/^\[  FAILED  \] //' | tr '\n' ' ')
        echo "killed       $rule -> $k"
    elif grep -qE '\.[ch]:[0-9]+:[0-9]+: error: |undefined reference' "$t/.log"; then
        echo "NO BUILD     $rule"
        tail -3 "$t/.log"
    else
        echo "killed       $rule -> a test crashed: $(grep -E '^\[ RUN      \]' "$t/.log" | tail -1 | sed 's/.*\] //')"
    fi
    # the tree as tree 0 has it: the source, and what the mutant rebuilt
    cp -a "$work/0/$file" "$t/$file"
    for u in $narrowed; do touch -r "$work/0/$u" "$t/$u"; done
    find "$t/build" "$t/bin" -newer "$t/.stamp" -type f | while read -r f; do
        if [ -e "$work/0/${f#$t/}" ]; then cp -a "$work/0/${f#$t/}" "$f"; else rm -f "$f"; fi
    done
}

# the rules to run (MUTATE_ONLY's), one a line; the jobs take the next one
# as each finishes, so none waits at the end on another's share of slow ones
grep -v '^$' "$list" | while IFS='|' read -r rule rest; do
    case $rule in "${MUTATE_ONLY:-}"*) printf '%s|%s\n' "$rule" "$rest" ;; esac
done > "$work/rules"
nrules=$(wc -l < "$work/rules")
echo 1 > "$work/next"
take() { # the number of the next rule to run (from 1), past nrules when none is left
    flock "$work/next" sh -c 'n=$(cat "$0"); echo $((n + 1)) > "$0"; echo "$n"' "$work/next"
}
# job k: rules in tree k until none is left
worker() {
    t=$work/$1
    while n=$(take) && [ "$n" -le "$nrules" ]; do
        sed -n "${n}p" "$work/rules" > "$t/.rule"
        IFS='|' read -r rule file subst < "$t/.rule"
        t0=$(date +%s%N)
        mutate_one "$rule" "$file" "$subst" > "$t/.line"
        t1=$(date +%s%N)
        # the line, and how long the mutant took (for make test's budget)
        sed "s/^/$n /; 1s/\$/ [$(( (t1 - t0) / 100000000 ))ds]/" "$t/.line"
    done
}
for k in $(seq "$jobs"); do worker "$k" > "$work/out.$k" & done
wait
# the report in the list's order
sort -n -s -k1,1 "$work"/out.* | sed 's/^[0-9]* //'
killed=$(cat "$work"/out.* | grep -c '^[0-9]* killed')
survived=$(cat "$work"/out.* | grep -cE '^[0-9]* (SURVIVED|NOT APPLIED|NO BUILD)')
echo "mutations: $killed killed, $survived survived"
[ "$survived" -eq 0 ]
