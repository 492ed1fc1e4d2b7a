#!/bin/sh
# One log, one recorder: a second fpm-record started on a live log exits 2
# naming the first one's pid and touches nothing (the first one's rounds
# are all there, zstd -t passes); SIGHUP takes the lock on the new file
# before writing it; an empty file the recorder adopts is made 0600.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/integration/fpm.sh"
. "$top/tests/integration/check.sh"
dir=$(mktemp -d /tmp/fpmcpu-lock.XXXXXX)
holder=
trap '[ -n "$holder" ] && kill "$holder" 2>/dev/null; fpm_stop "$dir"; rm -rf "$dir"' EXIT INT TERM
printf '[www]\nlisten = %s/www.sock\npm = static\npm.max_children = 2\npm.status_path = /status\n' \
    "$dir" > "$dir/www.conf"
fpm_start "$dir" "$dir/www.conf" || { cat "$dir/fpm.log" >&2; exit 1; }
rec="$top/bin/fpm-record"
pool="www=unix:$dir/www.sock"
# wait_size FILE: until FILE holds a round (at most 30 s)
wait_size() {
    i=0
    while ! zstdcat "$1" 2>/dev/null | grep -q '^seq=1$' && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
}

# 1. a second recorder on a live log
"$rec" -q --pool "$pool" --interval 1s --rounds 6 -o "$dir/log" 2>"$dir/first.err" &
first=$!
wait_size "$dir/log"
"$rec" -q --pool "$pool" --interval 1s --rounds 3 -o "$dir/log" >"$dir/second.out" 2>"$dir/second.err"
check "a second recorder on a live log exits 2" $([ $? -eq 2 ]; echo $?)
grep -q "^fpm-record: $dir/log: another fpm-record (pid $first) is writing this log: refused, nothing written\$" \
    "$dir/second.err"
check "it names the first recorder's pid" $?
[ "$(cat "$dir/second.err")" != "" ] || cat "$dir/second.err" >&2
wait $first
check "the first recorder ends well" $?
zstd -t -q "$dir/log"; check "zstd -t passes on the log both were given" $?
seqs=$(zstdcat "$dir/log" | grep -c '^seq=')
[ "$seqs" -eq 6 ]; check "all 6 of the first recorder's rounds are there ($seqs)" $?
hosts=$(zstdcat "$dir/log" | grep -c '^#fpmlog1 HOST ')
[ "$hosts" -eq 1 ]; check "the second recorder wrote nothing (HOST records: $hosts)" $?
grep -q "repaired\|closed the zstd frame" "$dir/first.err" "$dir/second.err"
check "nobody repaired a frame that was in use" $([ $? -ne 0 ]; echo $?)

# 2. SIGHUP: the new file is locked by another process: nothing is written to it
"$rec" -q --pool "$pool" --interval 1s --duration 60s -o "$dir/hup" 2>"$dir/hup.err" &
rpid=$!
wait_size "$dir/hup"
mv "$dir/hup" "$dir/hup.1"
: > "$dir/hup"
python3 -c '
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
open(sys.argv[2], "w").write("locked")
time.sleep(60)' "$dir/hup" "$dir/locked" &
holder=$!
i=0; while [ ! -s "$dir/locked" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -HUP $rpid
wait $rpid
check "on SIGHUP, a new file another process holds stops the recorder (2)" $([ $? -eq 2 ]; echo $?)
[ ! -s "$dir/hup" ]; check "not a byte was written to the locked new file" $?
grep -q "$dir/hup: another fpm-record (pid $holder) is writing this log" "$dir/hup.err"
check "it says who holds the new file" $?
zstd -t -q "$dir/hup.1"; check "the rotated log is whole (zstd -t)" $?
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null; holder=

# 3. an empty file adopted is made 0600; a new one is created 0600
: > "$dir/adopt"; chmod 0644 "$dir/adopt"
"$rec" -q --pool "$pool" --interval 1s --rounds 1 -o "$dir/adopt" 2>/dev/null
check "an empty file is adopted" $?
[ "$(stat -c %a "$dir/adopt")" = 600 ]; check "an adopted empty file is made 0600 ($(stat -c %a "$dir/adopt"))" $?
(umask 000; "$rec" -q --pool "$pool" --interval 1s --rounds 1 -o "$dir/new" 2>/dev/null)
[ "$(stat -c %a "$dir/new")" = 600 ]; check "a new log is created 0600 under umask 000" $?
summary "record lock"
