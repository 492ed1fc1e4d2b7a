#!/bin/sh
# Section 17 on a real php-fpm 8.2: a pool whose requests only compute
# (150 ms of CPU each, by getrusage inside the script), 8 workers kept busy by two
# clients (the idle ones give the readings) and recorded at 5 s beside a CPU
# burner the test starts and stops, on the same CPU.
# php-fpm's shares then read low: each request also waited for a CPU.  The
# analyzer's, corrected by each worker's SCHED, must come back within 10
# points of the truth the script itself measured: its CPU (getrusage) over
# its wall time less its own wait (/proc/thread-self/schedstat's run delay),
# whatever else runs on the machine.  Without the SCHED records they do not.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/integration/fpm.sh"
ROUNDS=${ROUNDS:-10}
dir=$(mktemp -d /tmp/fpmcpu-wait.XXXXXX)
burner=""
trap 'touch "$dir/stop"; [ -n "$burner" ] && kill $burner 2>/dev/null; fpm_stop "$dir"; [ -n "${KEEP:-}" ] || rm -rf "$dir"' EXIT INT TERM
. "$top/tests/integration/check.sh"

mkdir -m 777 "$dir/truth.d"
cat > "$dir/burn.php" <<PHP
<?php
function waited() { return (int)explode(' ', file_get_contents('/proc/thread-self/schedstat'))[1]; }
function cpu_us() { \$r = getrusage(); return \$r['ru_utime.tv_sec'] * 1000000 + \$r['ru_utime.tv_usec'] + \$r['ru_stime.tv_sec'] * 1000000 + \$r['ru_stime.tv_usec']; }
\$c0 = cpu_us(); \$t0 = hrtime(true); \$d0 = waited();
do { for (\$i = 0; \$i < 20000; \$i++) {} } while (cpu_us() - \$c0 < 150000);
\$c = cpu_us() - \$c0; \$t = (hrtime(true) - \$t0) / 1000; \$d = (waited() - \$d0) / 1000;
file_put_contents('$dir/truth.d/' . getmypid(), sprintf("%d %d %d\n", \$c, \$t, \$d), FILE_APPEND);
echo "ok";
PHP
chmod 644 "$dir/burn.php"
printf '[cpu]\nlisten = %s/cpu.sock\npm = static\npm.max_children = 8\npm.status_path = /status\n' \
    "$dir" > "$dir/cpu.conf"
fpm_start "$dir" "$dir/cpu.conf" || { cat "$dir/fpm.log" >&2; exit 1; }
# php-fpm and the burner share one CPU, so that the wait is theirs whatever
# else runs on the machine (the scheduler moves the rest to the others)
cpu=$(python3 -c 'import os; print(max(os.sched_getaffinity(0)))')
for pid in $(cat "$dir/fpm.pid") $(pgrep -P "$(cat "$dir/fpm.pid")"); do
    taskset -a -p -c "$cpu" "$pid" >/dev/null
done
for c in 1 2; do
    ( while [ ! -e "$dir/stop" ]; do fcgi_load "$dir/cpu.sock" /burn.php "$dir/burn.php" ""; done ) &
done
taskset -c "$cpu" sh -c 'while :; do :; done' &
burner=$!

"$top/bin/fpm-record" --fpm-config "$dir/fpm.conf" --interval 5s --rounds "$ROUNDS" \
    -o "$dir/log" 2>"$dir/rec.err"
check "fpm-record exits 0" $?
kill $burner; burner=""
touch "$dir/stop"; wait
[ ! -s "$dir/rec.err" ] || { echo "recorder said:" >&2; cat "$dir/rec.err" >&2; }

zstdcat "$dir/log" > "$dir/plain"
[ "$(grep -c '^#fpmlog1 SCHED [0-9]* [0-9]* cpu ' "$dir/plain")" = "$ROUNDS" ]
check "a SCHED record of the pool every round" $?
"$top/bin/fpm-analyze" --format json "$dir/log" > "$dir/json" 2>"$dir/an.err"
check "fpm-analyze reads the log" $?
"$top/bin/tests/logdrop" SCHED < "$dir/log" > "$dir/nosched" 2>/dev/null
"$top/bin/fpm-analyze" --format json "$dir/nosched" > "$dir/json-nosched" 2>>"$dir/an.err"
check "and the log without its SCHED records" $?
"$top/bin/fpm-analyze" "$dir/log" > "$dir/text" 2>>"$dir/an.err"
python3 - "$dir" <<'PY' > "$dir/checks"
import glob, json, sys
d = sys.argv[1]
def say(ok, what):
    print(("ok " if ok else "FAIL ") + what)
cpu = wall = waited = 0
for f in glob.glob(d + "/truth.d/*"):
    for line in open(f):
        c, t, w = map(int, line.split())
        cpu, wall, waited = cpu + c, wall + t, waited + w
raw, own = 100.0 * cpu / wall, 100.0 * cpu / (wall - waited)
p = json.load(open(d + "/json"))["hosts"][0]["pools"][0]
q = json.load(open(d + "/json-nosched"))["hosts"][0]["pools"][0]
text = open(d + "/text").read()
say(waited / (cpu + waited) >= 0.10,
    "the requests waited for a CPU: %.0f%% of the time they wanted one (their own schedstat)"
    % (100.0 * waited / (cpu + waited)))
say(p["busy_pct"] is not None and abs(p["busy_pct"] - own) <= 10,
    "the corrected busy share %s%% is within 10 points of the truth %.1f%% "
    "(getrusage over the wall time less the wait; php-fpm's own view %.1f%%)"
    % (p["busy_pct"], own, raw))
say(p["contended_readings"] > 0 and p["measured_under_contention"] is False,
    "contended readings (%d) are corrected, not a floor" % p["contended_readings"])
say(q["busy_pct"] is not None and own - q["busy_pct"] > 10,
    "without SCHED the share reads low: %s%% for %.1f%%" % (q["busy_pct"], own))
say("waited for the CPU" in text, "the WHY says how long the requests waited")
print("note truth: %d requests' CPU %.0f ms, wall %.0f ms, waited %.0f ms: own share %.1f%%, "
      "php-fpm's %.1f%%; analyzer %s%% (TYPICAL %s%%), without SCHED %s%%" % (
          sum(1 for f in glob.glob(d + "/truth.d/*") for _ in open(f)), cpu / 1000, wall / 1000,
          waited / 1000, own, raw, p["busy_pct"], p["typical_pct"], q["busy_pct"]))
PY
check "the python step ran" $?
while read -r verdict rest; do
    case $verdict in
    note) echo "record wait: $rest" ;;
    *) [ "$verdict" = ok ]; check "$rest" $? ;;
    esac
done < "$dir/checks"
summary record_wait
