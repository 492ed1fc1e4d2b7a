#!/bin/sh
# Section 14's memory ceiling against the kernel's OOM killer, on a real
# php-fpm 8.2 in a real cgroup v1 memory group with a limit (made here and
# removed after; root only, said and skipped otherwise).  Each request
# holds 64 MiB for most of a second.  Recorded at pm.max_children = 4, the
# analyzer gives the pool's memory ceiling under the cgroup's limit; then
# pm.max_children goes up one at a time, every worker kept busy, until the
# kernel reports an OOM kill in the group (memory.oom_control's oom_kill).
# The ceiling must be at most that count, and no more than 2 below it.
# php-fpm also runs in a cpu group of the highest cpu.shares, so that other
# load on the machine does not keep its workers from going idle between
# requests (the recording needs 20 memory readings).
# Then the pool busy (docs/rules.md 14.1): its workers take a new request
# 100 ms after each, recorded beside two CPU burners the test starts, the
# recorder outside the cpu group (kept waiting between the status page and
# the statm reads, as on a busy host): W must stay within 10% of the W
# measured quiet, and the memory ceiling at least 1 and never past the OOM
# count (how far below it is said: under 14.1 as amended a busy round's
# budget can count held requests as other memory).
# The same log without its STATM0 records (the rule before them) is said
# beside it.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/integration/fpm.sh"
. "$top/tests/integration/check.sh"
LIMIT_MIB=${LIMIT_MIB:-325}
mem_test record_oom "$LIMIT_MIB"
if cg_first "$ccg"; then
    cg_wrap "$dir/incg" "$cg" "$ccg"
else
    cg_wrap "$dir/incg" "$cg"
fi
# (325 MiB: 4 workers of ~65 MiB fit, 5 do not, and 90% of it over a W of
# ~71 MiB is 4.1: the ceiling's floor and the OOM count are both away from
# an edge)
# The recording's clients pause 1 s between requests: a reading is a worker
# idle on the status page, and one that takes its next request before the
# recorder reads its statm counts that request's 64 MiB twice (private and
# last request memory); beside make mutate and two burners W once came out
# at 144 MiB, the ceiling at 2 for an OOM count of 5.

# start N: php-fpm with pm.max_children N in the group, its workers up
start() {
    printf '[mem]\nlisten = %s/mem.sock\npm = static\npm.max_children = %s\npm.status_path = /status\npm.status_listen = %s/status.sock\n' \
        "$dir" "$1" "$dir" > "$dir/mem.conf"
    FPM_WRAP=$dir/incg fpm_start "$dir" "$dir/mem.conf" && sleep 0.5
}
start 4; check "php-fpm starts in the group, pm.max_children 4" $?
python3 "$load" "$dir/mem.sock" "$script" "mb=64&busy=20&sleep=100" 4 "$dir/stop" 1000 &
mem_record
zstdcat "$dir/log" | grep -q "^mem_limit_bytes=$((LIMIT_MIB * 1048576))$"
check "HOST mem_limit_bytes is the group's limit" $?
"$top/bin/fpm-analyze" --format json "$dir/log" > "$dir/json" 2>/dev/null
check "fpm-analyze reads the log" $?
set -- $(python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))["hosts"][0]
m = h["pools"][0]["memory"]
print(m["mem_ceiling"], m["per_worker_bytes"], h["memory"]["budget_bytes"], h["memory"]["other_max_bytes"], m["readings"])' "$dir/json")
ceiling=$1 w=$2 budget=$3 other=$4
[ "$ceiling" != None ]; check "a memory ceiling (W $w bytes of $5 readings, budget $budget, other $other)" $?

# busy: a new request 100 ms after each, beside two burners, the recorder
# not in the cpu group (the bracket of STATM0 and STATM is what holds W)
mv "$dir/log" "$dir/log-quiet"
rm -f "$dir/stop"
wait
# the clients in the cpu group with php-fpm (when made): the pool busy
# whatever the burners take, the recorder beside them
client_in=""
if [ -d "$ccg" ]; then cg_wrap "$dir/client-incpu" "$ccg"; client_in=$dir/client-incpu; fi
$client_in python3 "$load" "$dir/mem.sock" "$script" "mb=64&busy=20&sleep=100" 4 "$dir/stop" 100 &
burners=""
for b in 1 2; do sh -c 'while :; do :; done' & burners="$burners $!"; done
sleep 1
# A request takes about 500 ms and its worker then waits 100 ms: a busy
# worker is idle on a page in about one round of six, fewer on a machine
# busier than this one (CI's read W from fewer than 20 readings in 36
# rounds: W estimated, no memory ceiling, as 14.4 says).  So the recorder
# appends 18 rounds at a time until the pool has 20 memory readings, 144
# rounds at most; the readings are the analyzer's count.
# busy_readings: the pool's memory readings in the busy log, or 0
busy_readings() {
    "$top/bin/fpm-analyze" --format json "$dir/log" 2>/dev/null | python3 -c '
import json, sys
try:
    print(json.load(sys.stdin)["hosts"][0]["pools"][0]["memory"]["readings"] or 0)
except Exception:
    print(0)'
}
rounds=0 nread=0 rec=0
while [ "$rec" = 0 ] && [ "$nread" -lt 20 ] && [ "$rounds" -lt "${BUSY_MAX:-144}" ]; do
    chunk=$([ "$rounds" = 0 ] && echo "${BUSY_ROUNDS:-36}" || echo 18)
    "$top/bin/fpm-record" -q --fpm-config "$dir/fpm.conf" --interval 1s --rounds "$chunk" \
        -o "$dir/log" 2>/dev/null || rec=$?
    rounds=$((rounds + chunk)) nread=$(busy_readings)
done
[ "$rec" = 0 ]; check "fpm-record exits 0 (busy, beside two burners, $rounds rounds for $nread memory readings)" $?
kill $burners 2>/dev/null
touch "$dir/stop"
wait
rm -f "$dir/stop"
zstdcat "$dir/log" | grep -q '^#fpmlog1 STATM0 '; check "the busy log has STATM0 records" $?
"$top/bin/fpm-analyze" --format json "$dir/log" > "$dir/json-busy" 2>/dev/null
check "fpm-analyze reads the busy log" $?
"$top/bin/tests/logdrop" STATM0 < "$dir/log" > "$dir/log-nostatm0" 2>/dev/null
"$top/bin/fpm-analyze" --format json "$dir/log-nostatm0" > "$dir/json-nostatm0" 2>/dev/null
check "and the busy log without STATM0" $?
set -- $(python3 -c '
import json, sys
def mem(f):
    h = json.load(open(f))["hosts"][0]
    m = h["pools"][0]["memory"]
    b = h["memory"]["budget_bytes"]
    return (m["per_worker_bytes"], m["mem_ceiling"], m["readings"], m["per_worker_source"],
            m["no_advice"] or "-", b // 1048576 if b is not None else None)
w, c, n, src, why, b = mem(sys.argv[1])
w0, c0, n0, src0, why0, b0 = mem(sys.argv[2])
print(w, c, n, src, why, b, "%.0f" % (w0 / 1048576) if w0 else None, c0)' "$dir/json-busy" "$dir/json-nostatm0")
wbusy=$1 cbusy=$2 nbusy=$3 wsrc=$4 nobusy=$5 bbusy=$6 wold=$7 cold=$8
[ "$wbusy" != None ] && [ "$w" != None ] &&
    [ $((10 * wbusy)) -le $((11 * w)) ] && [ $((10 * wbusy)) -ge $((9 * w)) ]
check "busy beside two burners, W $((wbusy / 1048576)) MiB ($nbusy readings) is within 10% of W quiet $((w / 1048576)) MiB" $?
fpm_stop "$dir"

# up one worker at a time, every worker busy, until the kernel kills one
before=$(mem_kills) count=""
for n in $(seq 5 16); do
    start "$n" || { check "php-fpm starts with pm.max_children $n" 1; break; }
    python3 "$load" "$dir/mem.sock" "$script" "mb=64&busy=20&sleep=800" "$n" "$dir/stop" &
    sleep 4
    touch "$dir/stop"
    wait
    rm -f "$dir/stop"
    fpm_stop "$dir"
    if [ "$(mem_kills)" != "$before" ]; then count=$n; break; fi
done
[ -n "$count" ]; check "the kernel killed a worker at some pm.max_children (${count:-none})" $?
if [ -n "$count" ] && [ "$ceiling" != None ]; then
    echo "record oom: memory ceiling $ceiling (W $((w / 1048576)) MiB, budget $((budget / 1048576)) MiB of $LIMIT_MIB), the OOM kill at $count workers"
    [ "$ceiling" -le "$count" ] && [ "$ceiling" -ge $((count - 2)) ]
    check "the memory ceiling $ceiling is at most the OOM count $count and no more than 2 below it" $?
    echo "record oom: busy beside two burners, $nbusy readings in $rounds rounds: W $((wbusy / 1048576)) MiB ($wsrc), memory ceiling $cbusy (budget $bbusy MiB, no advice: $nobusy); the same log without STATM0 (the rule before it): W $wold MiB, ceiling $cold"
    if [ "$nbusy" -ge 20 ]; then
        # never a ceiling the kernel kills at; how far below it the ceiling
        # falls is said, not held: 14.1 (amended in turn 7) takes each
        # worker's smaller of STATM and STATM0 in the round's php too, so a
        # request a worker holds between the two reads counts as the rest
        # of the host's memory (the cgroup's memory.stat, read in the same
        # pass as STATM, holds it), and a busy round can shrink the budget
        # (a run here: 168 MiB for 292 quiet, ceiling 2 for an OOM at 5;
        # the rule before it, php from STATM, read 4 on the same log)
        [ "$cbusy" != None ] && [ "$cbusy" -ge 1 ] && [ "$cbusy" -le "$count" ]
        check "busy: the memory ceiling $cbusy is at least 1 and at most the OOM count $count" $?
        [ "$cbusy" != None ] && [ "$cbusy" -lt $((count - 1)) ] &&
            echo "record oom: busy: the ceiling $cbusy is $((count - cbusy)) below the OOM count: the budget counted requests held between STATM0 and STATM as other memory (14.1 amended); php from STATM alone gives $cold"
    else
        # a machine so busy that 144 rounds gave fewer than 20 readings:
        # W is estimated, and an estimated W gives no ceiling (14.4)
        [ "$wsrc" = estimated ] && [ "$cbusy" = None ]
        check "busy: $nbusy readings in $rounds rounds: W $wsrc, memory ceiling $cbusy (none from an estimated W)" $?
    fi
fi
summary record_oom
