#!/bin/sh
# The progress line: on a terminal (script(1) gives one), a long replay shows
# "... MB/s, N rounds" on stderr, rewritten in place; with --quiet, or when
# stderr is not a terminal, nothing.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
. "$top/tests/integration/check.sh"
# the same log 300 times is one long history: long enough for an update
logs=$(for i in $(seq 300); do printf 'fixtures/logs/realistic.fpmlog.zst '; done)
out=$(script -qc "bin/fpm-analyze --format json $logs >/dev/null" /dev/null | tr '\r' '\n')
echo "$out" | grep -q 'fpm-analyze: fixtures/logs/realistic.fpmlog.zst: [0-9.]* of 0.1 MB ([0-9]*%), [0-9.]* MB/s, [0-9]* rounds'
check "a progress line on a terminal" $?
# (the same log given 300 times is also said, once per file: no progress)
out=$(script -qc "bin/fpm-analyze --quiet --format json $logs >/dev/null" /dev/null)
echo "$out" | grep -q 'given twice'; check "the repeated log is said" $?
echo "$out" | grep -q 'MB/s'; [ $? -ne 0 ]; check "no progress with --quiet" $?
out=$(bin/fpm-analyze --format json $logs 2>&1 >/dev/null)
echo "$out" | grep -q 'MB/s'; [ $? -ne 0 ]; check "none when stderr is not a terminal" $?
summary "progress"
