#!/bin/sh
# The threaded replay gives the serial replay's output, byte for byte: every
# fixture log (and all of them as one history), in every format, with the
# CSV exports, on 1, 2, 4 and 5 threads (4 and 5 decode frames ahead); also
# exit status and messages.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
t=$(mktemp -d /tmp/fpmcpu-threads.XXXXXX)
trap 'rm -rf "$t"' EXIT
pass=0 fail=0
run() { # NAME THREADS ARGS...
    name=$1 n=$2; shift 2
    bin/fpm-analyze --threads "$n" --csv-readings "$t/$name.$n.readings" \
        --csv-rounds "$t/$name.$n.rounds" "$@" > "$t/$name.$n.out" 2> "$t/$name.$n.err"
    echo $? > "$t/$name.$n.rc"
}
same() { # NAME
    if [ "$(cat "$t/$1.1.rc")" = 2 ]; then
        echo "FAIL: $1: the serial replay itself failed" >&2; fail=$((fail + 1)); return
    fi
    for n in 2 4 5; do
        for part in out err rc readings rounds; do
            if ! cmp -s "$t/$1.1.$part" "$t/$1.$n.$part"; then
                echo "FAIL: $1: $n threads: $part differs from the serial replay" >&2
                fail=$((fail + 1))
                return
            fi
        done
    done
    pass=$((pass + 1))
}
for f in fixtures/logs/*; do
    b=$(basename "$f")
    for fmt in text json openmetrics; do
        for n in 1 2 4 5; do run "$b-$fmt" $n --format "$fmt" --explain "$f"; done
        same "$b-$fmt"
    done
done
for n in 1 2 4 5; do run all $n --format json fixtures/logs/*; done
same all
run2() { # NAME THREADS COMMAND ARGS...: hist and check, without the exports
    name=$1 n=$2 cmd=$3; shift 3
    bin/fpm-analyze "$cmd" --threads "$n" "$@" > "$t/$name.$n.out" 2> "$t/$name.$n.err"
    echo $? > "$t/$name.$n.rc"
    : > "$t/$name.$n.readings"; : > "$t/$name.$n.rounds"
}
for n in 1 2 4 5; do run2 hist $n hist fixtures/logs/realistic.fpmlog.zst; done
same hist
for n in 1 2 4 5; do run2 check $n check --baseline fixtures/ci-baseline.json fixtures/logs/ci-heavier.fpmlog; done
same check
for n in 1 2 4 5; do run window $n --from 2026-11-29T22:10:00Z --until 2026-11-29T22:20:00Z \
    fixtures/logs/small.fpmlog fixtures/logs/vps.fpmlog; done
same window
echo "threads: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
