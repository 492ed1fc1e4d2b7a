#!/bin/sh
# A real php-fpm 8.2 with three pools of known workloads, recorded by
# fpm-record over FastCGI and analyzed by fpm-analyze:
#   heavy  70 ms of CPU time + 30 ms asleep per request (status via pm.status_listen)
#   light  10 ms of CPU time + 90 ms asleep per request
#   quiet  no load: its only requests are the recorder's own status requests
# The CPU is burnt by CPU time, not wall time, and every figure is checked
# against what php-fpm itself wrote in its access log in the same run, so
# the test holds on a busy machine.  A second php-fpm master with a pool of
# the same name runs beside it.  Prints the recorder's measured cost.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/integration/fpm.sh"
ROUNDS=${ROUNDS:-7}
INTERVAL=${INTERVAL:-5s}
dir=$(mktemp -d /tmp/fpmcpu-record.XXXXXX)
trap 'touch "$dir/stop"; fpm_stop "$dir/other"; fpm_stop "$dir"; rm -rf "$dir"' EXIT INT TERM
. "$top/tests/integration/check.sh"

cat > "$dir/burn.php" <<'PHP'
<?php
// ?busy= ms of CPU time, then asleep for ?sleep= ms
function cpu_ms() {
    $r = getrusage();
    return ($r['ru_utime.tv_sec'] + $r['ru_stime.tv_sec']) * 1000.0 +
           ($r['ru_utime.tv_usec'] + $r['ru_stime.tv_usec']) / 1000.0;
}
$busy = (int)($_GET['busy'] ?? 70);
$t = cpu_ms();
while (cpu_ms() - $t < $busy) {}
usleep((int)($_GET['sleep'] ?? 30) * 1000);
echo "ok";
PHP
chmod 644 "$dir/burn.php"
pool() { # NAME EXTRA...
    n=$1; shift
    printf '[%s]\nlisten = %s/$pool.sock\npm = static\npm.max_children = 4\n' "$n" "$dir" > "$dir/$n.conf"
    printf 'access.log = %s/$pool.access\naccess.format = "%%p %%{mili}d %%C %%r"\n' "$dir" >> "$dir/$n.conf"
    for l in "$@"; do echo "$l" >> "$dir/$n.conf"; done
}
pool heavy "pm.status_path = /status" "pm.status_listen = $dir/heavy-status.sock"
pool light "pm.status_path = /fpm-status"
pool quiet "pm.status_path = /status" "listen.backlog = 37"
fpm_start "$dir" "$dir/heavy.conf" "$dir/light.conf" "$dir/quiet.conf" || { cat "$dir/fpm.log" >&2; exit 1; }
cp "$dir/fpm.conf" "$dir/fpm-for-recorder.conf"
# another php-fpm master (a staging instance) with a pool of the same name
mkdir "$dir/other"
printf '[heavy]\nlisten = %s/other/heavy.sock\npm = static\npm.max_children = 2\npm.status_path = /status\n' \
    "$dir" > "$dir/other/heavy.conf"
fpm_start "$dir/other" "$dir/other/heavy.conf" || { cat "$dir/other/fpm.log" >&2; exit 1; }

# bounded load: each client stops at the stop file or after 1500 requests
client() { # POOL BUSY SLEEP
    n=0
    while [ ! -e "$dir/stop" ] && [ $n -lt ${LOAD_REQUESTS:-1500} ]; do
        n=$((n + 1))
        fcgi_load "$dir/$1.sock" /burn.php "$dir/burn.php" "busy=$2&sleep=$3&token=s3cret"
    done
}
client heavy 70 30 & client light 10 90 & client light 10 90 &
sleep 2

"$top/bin/fpm-record" --fpm-config "$dir/fpm-for-recorder.conf" --interval "$INTERVAL" --rounds "$ROUNDS" \
    --redact-query -o "$dir/log" 2>"$dir/rec.err" &
rec=$!
watch_rss $rec
wait $rec; check "fpm-record exits 0" $?
touch "$dir/stop"; wait
[ ! -s "$dir/rec.err" ] || { echo "recorder said:" >&2; cat "$dir/rec.err" >&2; }

# rules 2 and 3 against php-fpm's own access log: the log without its
# ACCESS records (with them, the pools are censused from their access logs,
# section 20, and their pages give no reading) and without its SCHED
# records, so that each share is php-fpm's as it was written (with them, a
# reading whose worker waited for the CPU counts at its own share, which
# record_wait.sh checks)
"$top/bin/tests/logdrop" ACCESS < "$dir/log" > "$dir/log-pages" 2>/dev/null
check "the log without its ACCESS records" $?
"$top/bin/tests/logdrop" SCHED < "$dir/log-pages" > "$dir/log-nosched" 2>/dev/null
check "and without its SCHED records" $?
"$top/bin/fpm-analyze" --format json --csv-readings "$dir/readings.csv" --csv-rounds "$dir/rounds.csv" \
    "$dir/log-nosched" > "$dir/json" 2>"$dir/an.err"
check "fpm-analyze reads the log" $?
"$top/bin/fpm-analyze" --format json "$dir/log-pages" > "$dir/json-sched" 2>>"$dir/an.err"
check "and the log with them" $?
"$top/bin/fpm-analyze" --format json "$dir/log" > "$dir/json-census" 2>>"$dir/an.err"
check "and the whole log" $?
python3 -c '
import json, sys
p = {x["pool"]: x for x in json.load(open(sys.argv[1]))["hosts"][0]["pools"]}
sys.exit(0 if all(p[n]["source"] == "access_log" and p[n]["requests"] > 0 for n in ("heavy", "light")) else 1)' "$dir/json-census"
check "whole, heavy and light are counted from their access logs (section 20)" $?
[ ! -s "$dir/an.err" ]; check "no damage and no dropped pair reported" $?
[ -s "$dir/an.err" ] && cat "$dir/an.err" >&2
python3 - "$dir/json" "$ROUNDS" "$dir/readings.csv" "$dir" "$dir/rounds.csv" "$top" <<'PY' > "$dir/checks"
import csv, json, sys
sys.path.insert(0, sys.argv[6] + "/tests/integration")
import rule_busy
d = json.load(open(sys.argv[1]))
h = d["hosts"][0]
p = {x["pool"]: x for x in h["pools"]}
def say(ok, what):
    print(("ok " if ok else "FAIL ") + what)
say(h["rounds"] == int(sys.argv[2]), "rounds %d" % h["rounds"])
hv, lt, qt = p["heavy"], p["light"], p["quiet"]
say(hv["readings"] >= 5, "heavy has readings (%d)" % hv["readings"])
say(lt["readings"] >= 3, "light has readings (%d)" % lt["readings"])
# every accepted reading is a request php-fpm itself logged: the same
# worker, the same duration (ms) and the same CPU share
access = {}
for pool in ("heavy", "light"):
    for line in open("%s/%s.access" % (sys.argv[4], pool)):
        f = line.split()
        if len(f) >= 3:
            access.setdefault((pool, f[0]), []).append((float(f[1]), float(f[2].rstrip("%"))))
rows = [r for r in csv.DictReader(open(sys.argv[3])) if r["verdict"] == "accepted"]
matched = sum(1 for r in rows if any(
    abs(ms - int(r["duration_us"]) / 1000) <= 1 and abs(c - float(r["cpu_share_pct"])) <= 0.5
    for ms, c in access.get((r["pool"], r["pid"]), [])))
say(rows and matched == len(rows),
    "every accepted reading is a request in php-fpm's access log (%d of %d)" % (matched, len(rows)))
for name, pv in (("heavy", hv), ("light", lt)):
    shares = sorted(float(r["cpu_share_pct"]) for r in rows if r["pool"] == name)
    med = shares[(len(shares) + 1) // 2 - 1] if shares else None
    say(med is not None and pv["typical_pct"] == rule_busy.typical([round(v * 100) for v in shares]),
        "%s TYPICAL %s%% is the floor of the median of its readings (%s%%)" % (name, pv["typical_pct"], med))
say((hv["typical_pct"] or 0) > (lt["typical_pct"] or 0),
    "heavy (70 ms of CPU) reads above light (10 ms): %s%% > %s%%" % (hv["typical_pct"], lt["typical_pct"]))
pairs = [r for r in csv.DictReader(open(sys.argv[5])) if r["pool"] == "heavy"]
usable = [r for r in pairs if r["interval_s"] not in ("", None)]
say(len(usable) == int(sys.argv[2]) - 1,
    "at %s every round pair is usable (%d of %d)" % ("the interval", len(usable), int(sys.argv[2]) - 1))
ps = {x["pool"]: x for x in json.load(open(sys.argv[4] + "/json-sched"))["hosts"][0]["pools"]}
say(all((ps[n]["typical_pct"] or 0) >= (p[n]["typical_pct"] or 0) for n in ("heavy", "light")),
    "with SCHED no share reads lower (a wait only raises it): heavy %s%% for %s%%, light %s%% for %s%%"
    % (ps["heavy"]["typical_pct"], hv["typical_pct"], ps["light"]["typical_pct"], lt["typical_pct"]))
say(qt["readings"] == 0, "quiet: the recorder's requests give no reading (%d)" % qt["readings"])
say(qt["filtered"]["own"] >= int(sys.argv[2]) - 2,
    "quiet: the recorder's requests are counted as own (%d)" % qt["filtered"]["own"])
say(qt["filtered"]["short"] == 0, "quiet: none of them fell to the 50 ms rule instead")
say(hv["filtered"]["own"] == 0, "heavy: status_listen takes no worker (own %d)" % hv["filtered"]["own"])
say(hv["max_children"] == 4 and lt["max_children"] == 4, "pm.max_children from the config")
PY
check "the python step ran" $?
while read -r verdict rest; do
    [ "$verdict" = ok ]; check "$rest" $?
done < "$dir/checks"
[ "$(stat -c %a "$dir/log")" = 600 ]; check "the log is mode 0600" $?
zstdcat "$dir/log" > "$dir/plain"
grep -q s3cret "$dir/plain"; [ $? -ne 0 ]; check "--redact-query: no query string in the log" $?
grep -q '"request uri":"\\/burn.php"' "$dir/plain"; check "--redact-query keeps the path" $?
# the pools' own listen sockets: POOL listen=, and the kernel's queue every round
grep -q "^listen=unix:$dir/heavy.sock\$" "$dir/plain"; check "POOL listen= is the pool's own socket (not its status_listen)" $?
[ "$(grep -a -c '^#fpmlog1 LISTEN [0-9]* [0-9]* heavy ' "$dir/plain")" = "$ROUNDS" ]
check "a LISTEN record of heavy every round" $?
grep -a -A2 '^#fpmlog1 LISTEN [0-9]* [0-9]* quiet ' "$dir/plain" | grep -q '^backlog=37$'
check "LISTEN's backlog is the pool's listen.backlog (37)" $?
awk '/^#fpmlog1 (PIDS|LISTEN) [0-9]* [0-9]* quiet / { print $2 }' "$dir/plain" | head -2 | tr '\n' ' ' > "$dir/lorder"
[ "$(cat "$dir/lorder")" = "PIDS LISTEN " ]; check "LISTEN follows the pool's PIDS ($(cat "$dir/lorder"))" $?

"$top/bin/fpm-record" -q --pool "heavy=unix:$dir/heavy.sock,status_listen=unix:$dir/heavy-status.sock" \
    --interval 1s --rounds 2 -o "$dir/log2" 2>"$dir/rec2.err"
check "fpm-record --pool beside a second master exits 0" $?
zstdcat "$dir/log2" > "$dir/plain2"
# --pool without a configuration: max_children from the configuration its master names
grep -a -q '^max_children=4$' "$dir/plain2"; check "--pool learns pm.max_children from its master's configuration" $?
# the status listener given as the endpoint: the pool's own socket from the configuration
"$top/bin/fpm-record" -q --pool "heavy=unix:$dir/heavy-status.sock" --interval 1s --rounds 2 \
    -o "$dir/log3" 2>"$dir/rec3.err"
check "fpm-record --pool NAME=its status listener exits 0" $?
zstdcat "$dir/log3" | grep -a -q "^listen=unix:$dir/heavy.sock\$"
check "and writes the pool's own listen socket from the configuration" $?
# -n: a status page of another pool than the one named
"$top/bin/fpm-record" -n --pool "light=unix:$dir/heavy-status.sock" > "$dir/n.out" 2>&1
[ $? -eq 1 ]; check "-n with a pool's name that is not its page's exits 1" $?
grep -q 'this is the status page of pool "heavy", not of light' "$dir/n.out"
check "and says which pool the page is ($(head -1 "$dir/n.out"))" $?
# the heavy pool's workers are those of its own master, not the other's
python3 - "$dir/plain2" "$(cat "$dir/fpm.pid")" "$(cat "$dir/other/fpm.pid")" <<'PY' > "$dir/checks"
import re, sys
text = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
mine, other = sys.argv[2], sys.argv[3]
parents, n = set(), 0
for m in re.finditer(r"#fpmlog1 PIDS \d+ \d+ heavy \d+ \w+\n", text):
    n += 1
    body = text[m.end():].split("\n#fpmlog1 ", 1)[0]
    for line in body.strip("\n").split("\n"):
        if line:
            parents.add(line[line.rindex(")") + 2:].split()[1])
print(("ok" if n > 0 and parents == {mine} else "FAIL") +
      " two masters with a pool heavy, no config: its PIDS are children of its own master %s only (%s)" % (mine, sorted(parents)))
PY
check "the python step ran" $?
while read -r verdict rest; do [ "$verdict" = ok ]; check "$rest" $?; done < "$dir/checks"

# the recorder's cost, as measured: rounds 2 to the last (the start's clock
# check and first scan aside)
first=$(grep -a '^self_cpu_us=' "$dir/plain" | head -1 | cut -d= -f2)
last=$(grep -a '^self_cpu_us=' "$dir/plain" | tail -1 | cut -d= -f2)
self=$(( (last - first) * ROUNDS / (ROUNDS - 1) ))
took=$(grep -a '^took_us=' "$dir/plain" | cut -d= -f2 | sort -n | tail -1)
size=$(stat -c %s "$dir/log")
workers=$(grep -a -c '^[0-9]* (php-fpm8.2)' "$dir/plain")
echo "recorder: $ROUNDS rounds of 3 pools at $INTERVAL; CPU $((self / ROUNDS)) us per round; longest round $took us;" \
     "peak RSS $peak KiB; log $size bytes, $((size / workers)) bytes per worker per round"
summary "record php-fpm"
