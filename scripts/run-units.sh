#!/bin/sh
# Runs unit test binaries JOBS at a time (default the CPUs + 2: beside other
# loads they get their share of the CPU), each one's output printed whole,
# in the order given, once all are done; exit 1 when any failed.
# usage: scripts/run-units.sh BIN...
set -u
jobs=${UNIT_JOBS:-$(( $(nproc) + 2 ))}
out=$(mktemp -d /tmp/fpmcpu-units.XXXXXX)
trap 'rm -rf "$out"' EXIT INT TERM
i=0
for t in "$@"; do i=$((i + 1)); printf '%s %s\n' "$i" "$t"; done |
    xargs -P "$jobs" -L 1 sh -c '"$2" > "$0/$1.out" 2>&1; echo $? > "$0/$1.rc"' "$out"
i=0 failed=0
for t in "$@"; do
    i=$((i + 1))
    cat "$out/$i.out"
    [ "$(cat "$out/$i.rc" 2>/dev/null)" = 0 ] || { echo "FAIL: $t" >&2; failed=1; }
done
exit $failed
