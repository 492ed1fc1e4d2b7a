#!/bin/sh
# make fuzz: runs each libFuzzer harness for SECONDS on a corpus seeded from
# fixtures/ and tests/fuzz/regress/NAME/, prints the runs reached, and keeps
# any crash in build/fuzz/crash/NAME/ (add it to tests/fuzz/regress/NAME/
# once fixed: make test then replays it).
#   tests/fuzz/run.sh SECONDS NAME...
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
secs=$1; shift
bad=0
for f in "$@"; do
    corpus=build/fuzz/corpus/$f crash=build/fuzz/crash/$f
    mkdir -p "$corpus" "$crash"
    seeds=$(make -s --no-print-directory -f Makefile print-seeds-$f)
    for s in $seeds tests/fuzz/regress/$f/*; do
        [ -f "$s" ] || continue
        if [ "$f" = fpmlog ]; then  # two bytes first: how the harness lays out the log
            for mode in '\000' '\001' '\002' '\003' '\004'; do  # and the first 32 KiB:
                printf "$mode\200" | cat - "$s" | head -c 32768 > "$corpus/seed-$mode-$(basename "$s")"
            done                                                # small inputs run faster
        else
            cp "$s" "$corpus/seed-$(basename "$s")"
        fi
    done
    build/fuzz/fuzz_$f -max_total_time="$secs" -max_len=32768 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$crash/" "$corpus" > "build/fuzz/$f.log" 2>&1
    rc=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "build/fuzz/$f.log" | grep -o '[0-9]*$')
    rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "build/fuzz/$f.log" | grep -o '[0-9]*$')
    crashes=$(ls "$crash" | wc -l)
    echo "fuzz $f: ${runs:-?} runs in $secs s (${rate:-?}/s), corpus $(ls "$corpus" | wc -l) inputs, $crashes crash(es)"
    if [ $rc -ne 0 ] || [ "$crashes" -ne 0 ]; then
        bad=1
        echo "  see build/fuzz/$f.log and $crash/" >&2
    fi
done
exit $bad
