#!/bin/sh
# Section 12 on a real php-fpm 8.2, through a calm stretch and a saturated
# one (two CPU burners started here, and more connections than workers):
#   cpu    unix socket, 2 workers, 300 ms of CPU per request, 6 connections
#          in phase B: the kernel's queue > 0 (php-fpm says 0 on unix
#          sockets), starved rounds, all workers busy, max children reached;
#          phase B's window shows its activity
#   tcp    127.0.0.1, 1 worker, 3 connections in phase B: the kernel's
#          queue against php-fpm's own listen queue
#   mixed  6 workers, 30 ms of CPU + 20 ms asleep, through both phases:
#          its first round primed; each reading a request php-fpm logged;
#          12.3 as the log says, whatever the machine did: the readings of
#          saturated pairs contended, TYPICAL from the calm ones once there
#          are 20, else from all (then, with a contended one, measured
#          under contention); on a machine so busy that no worker was idle
#          when read, no reading, as php-fpm's states say
# Every share is checked against php-fpm's access log (%C), CPU burnt by CPU
# time.  It says which case it met.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/integration/fpm.sh"
PHASE_A=${PHASE_A:-11} PHASE_B=${PHASE_B:-6}
ROUNDS=$((PHASE_A + PHASE_B))
dir=$(mktemp -d /tmp/fpmcpu-load.XXXXXX)
burners=""
trap 'touch "$dir/stop"; [ -n "$burners" ] && kill $burners 2>/dev/null; fpm_stop "$dir"; rm -rf "$dir"' EXIT INT TERM
. "$top/tests/integration/check.sh"
load="python3 $top/tests/integration/fcgi_load.py"

busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat; }
b0=$(busy); sleep 2; b1=$(busy)
before=$(echo "$b0 $b1" | awk '{ b = $3 - $1; i = $4 - $2; printf "%.2f", b / (b + i) }')
if awk "BEGIN { exit !($before >= 0.5) }"; then
    PHASE_A=3 PHASE_B=5 # the host is busy already: no calm stretch to wait for
    ROUNDS=$((PHASE_A + PHASE_B))
fi

cp "$top/tests/integration/burn.php" "$dir/burn.php"
chmod 644 "$dir/burn.php"
port=$((20000 + $$ % 20000))
pool() { # NAME LISTEN MAX PM EXTRA...
    n=$1 l=$2 m=$3 pm=$4; shift 4
    printf '[%s]\nlisten = %s\npm = %s\npm.max_children = %s\npm.status_path = /status\n' "$n" "$l" "$pm" "$m" > "$dir/$n.conf"
    printf 'access.log = %s/$pool.access\naccess.format = "%%p %%{mili}d %%C %%{%%s}T"\n' "$dir" >> "$dir/$n.conf"
    for x in "$@"; do echo "$x" >> "$dir/$n.conf"; done
}
# cpu is dynamic: php-fpm counts max children reached only when it would
# have started another worker
pool cpu "$dir/cpu.sock" 2 dynamic "pm.start_servers = 2" "pm.min_spare_servers = 1" \
    "pm.max_spare_servers = 2" "pm.status_listen = $dir/cpu-status.sock"
pool tcp "127.0.0.1:$port" 1 static "pm.status_listen = $dir/tcp-status.sock"
pool mixed "$dir/mixed.sock" 6 static
chmod 711 "$dir"
fpm_start "$dir" "$dir/cpu.conf" "$dir/tcp.conf" "$dir/mixed.conf" || { cat "$dir/fpm.log" >&2; exit 1; }

# requests served before the recording: its first round must not count them
for i in 1 2 3 4 5 6; do python3 -c "import sys; sys.path.insert(0, '$top/tests/integration'); \
import fcgi_load; fcgi_load.request('$dir/mixed.sock', '$dir/burn.php', 'busy=30&sleep=20')"; done
# 300 ms apart: a worker is read idle after a request (a reading) in about
# 300 / (300 + its wall time) of the rounds, 60% when a request takes 200 ms
# beside two burners; on a machine busier still a reading may be missing
$load "$dir/mixed.sock" "$dir/burn.php" "busy=30&sleep=20" 6 "$dir/stop" 300 &
"$top/bin/fpm-record" --fpm-config "$dir/fpm.conf" --interval 5s --rounds "$ROUNDS" -o "$dir/log" \
    2>"$dir/rec.err" &
rec=$!
sleep $((PHASE_A * 5 - 3))
phase_b=$(date +%s)
yes > /dev/null & burners="$burners $!"
yes > /dev/null & burners="$burners $!"
$load "$dir/cpu.sock" "$dir/burn.php" "busy=300&sleep=0" 6 "$dir/stop" &
$load "127.0.0.1:$port" "$dir/burn.php" "busy=200&sleep=0" 3 "$dir/stop" &
wait $rec; check "fpm-record exits 0" $?
touch "$dir/stop"; kill $burners 2>/dev/null; burners=""; wait
[ ! -s "$dir/rec.err" ] || { echo "recorder said:" >&2; cat "$dir/rec.err" >&2; }

from=$(date -u -d "@$phase_b" +%Y-%m-%dT%H:%M:%SZ)
# section 12's rules as they read a log without SCHED (with it, a reading
# whose worker waited counts at its own share: record_wait.sh), and
# without ACCESS (with it, its pools are counted from their access logs,
# section 20: their pages give no reading)
"$top/bin/tests/logdrop" ACCESS < "$dir/log" | "$top/bin/tests/logdrop" SCHED > "$dir/log-nosched" 2>/dev/null
check "the log without its SCHED and ACCESS records" $?
"$top/bin/fpm-analyze" --format json --csv-rounds "$dir/rounds.csv" --csv-readings "$dir/readings.csv" \
    "$dir/log-nosched" > "$dir/json" 2>"$dir/an.err"
check "fpm-analyze reads the log" $?
"$top/bin/fpm-analyze" --format json --from "$from" "$dir/log-nosched" > "$dir/json-b" 2>>"$dir/an.err"
check "and its saturated window" $?
zstdcat "$dir/log" > "$dir/plain"
python3 - "$dir" "$before" "$top" <<'PY' > "$dir/checks"
import csv, json, re, sys
d, before = sys.argv[1], float(sys.argv[2])
sys.path.insert(0, sys.argv[3] + "/tests/integration")
import rule_busy
def say(ok, what):
    print(("ok " if ok else "FAIL ") + what)
p = {x["pool"]: x for x in json.load(open(d + "/json"))["hosts"][0]["pools"]}
pb = {x["pool"]: x for x in json.load(open(d + "/json-b"))["hosts"][0]["pools"]}
rounds = list(csv.DictReader(open(d + "/rounds.csv")))
def col(pool, name):
    return [r[name] for r in rounds if r["pool"] == pool]
# cpu: the queue only the kernel sees, starved rounds, all workers busy
kq = [int(v) for v in col("cpu", "queue") if v != ""]
say(kq and max(kq) > 0, "cpu (unix socket): the kernel's queue > 0 in some round (max %s)" % (max(kq) if kq else None))
say(p["cpu"]["starved_rounds"] > 0, "cpu: starved rounds %d > 0" % p["cpu"]["starved_rounds"])
a = p["cpu"]["activity"]
say(a["full_rounds"] > 0 and a["active_max"] == 2, "cpu: all 2 workers busy in %d rounds" % a["full_rounds"])
say(a["maxed_rounds"] > 0, "cpu: max children reached grew in %d rounds" % a["maxed_rounds"])
ab = pb["cpu"]["activity"]
# the pool's share of a full CPU depends on what else runs beside it: what
# matters is that the window shows what it did, not how much it got
say(ab["cores_mean"] is not None and ab["cores_mean"] > 0 and ab["full_rounds"] > 0,
    "cpu: its saturated window shows it, %s readings: %.2f cores on average, all busy in %d rounds"
    % (pb["cpu"]["readings"], ab["cores_mean"] or 0, ab["full_rounds"]))
# tcp: the kernel's queue beside php-fpm's own
text = open(d + "/plain", "rb").read().decode("utf-8", "replace")
fpm, kern = [], []
for m in re.finditer(r"#fpmlog1 (STATUS|LISTEN) (\d+) \d+ tcp \d+ \w+\n", text):
    body = text[m.end():].split("\n#fpmlog1 ", 1)[0]
    if m.group(1) == "STATUS":
        q = re.search(r'"listen queue":(\d+)', body)
        fpm.append((int(m.group(2)), int(q.group(1)) if q else None))
    else:
        q = re.search(r"^queue=(\d+)", body, re.M)
        kern.append((int(m.group(2)), int(q.group(1)) if q else None))
pairs = [(f[1], k[1], (k[0] - f[0]) / 1e6) for f, k in zip(fpm, kern) if f[1] is not None and k[1] is not None]
agree = sum(1 for f, k, _ in pairs if f == k)
busy_pairs = [x for x in pairs if x[0] or x[1]]
say(busy_pairs and max(max(f, k) for f, k, _ in busy_pairs) > 0,
    "tcp: a queue in %d rounds; php-fpm's and the kernel's agree in %d of %d rounds" % (len(busy_pairs), agree, len(pairs)))
print("note tcp: php-fpm's listen queue and the kernel's are read %.0f to %.0f ms apart (STATUS first, LISTEN "
      "after every pool's PIDS), never at the same moment; pairs (php-fpm, kernel): %s" % (
          min(x[2] for x in pairs) if pairs else 0, max(x[2] for x in pairs) if pairs else 0,
          [(f, k) for f, k, _ in busy_pairs]))
# mixed: the first round primes, then calm and contended readings
reads = list(csv.DictReader(open(d + "/readings.csv")))
first = min(r["time"] for r in reads) if reads else None
r1 = [r for r in reads if r["time"] == first and r["pool"] == "mixed"]
# a worker first seen idle after a request is primed; one running then (a
# machine busy before the test: every worker running) has nothing to prime
done1 = [r for r in r1 if r["verdict"] not in ("running", "own", "no_request")]
say(r1 and all(r["verdict"] == "primed" for r in done1) and
    p["mixed"]["filtered"]["primed"] >= len(done1),
    "mixed: its first round gives no reading: %d of its %d workers primed, the rest %s"
    % (len(done1), len(r1), sorted(set(r["verdict"] for r in r1) - {"primed"})))
# 12.3 on the mixed pool, as its log says, whatever the machine did: a
# reading is contended when its pair was saturated (the host at least 95%
# busy: the round's busy_ratio, which record_cgroup holds to the kernel's
# count); the figures come from the calm readings once there are 20, else
# from all, and then, with a contended one among them, the pool is measured
# under contention (a floor).  Each share is one php-fpm logged.
logged = {}  # (pid, duration in us): {%C in hundredths}, php-fpm's access log
for line in open(d + "/mixed.access"):
    f = line.split()
    if len(f) == 4:
        key = (int(f[0]), round(float(f[1]) * 1000))
        logged.setdefault(key, set()).add(round(float(f[2].rstrip("%")) * 100))
def hundredths(r):
    return round(float(r["cpu_share_pct"]) * 100)
ratio = {r["time"]: r["busy_ratio"] for r in rounds if r["pool"] == "mixed"}
mine = [r for r in reads if r["pool"] == "mixed" and r["verdict"] == "accepted"]
unlogged = [r for r in mine if hundredths(r) not in logged.get((int(r["pid"]), int(r["duration_us"])), ())]
say(not unlogged, "mixed: each of its %d readings is a request php-fpm logged (pid, duration, %%C)%s"
    % (len(mine), "; not: %s" % [(r["pid"], r["duration_us"], r["cpu_share_pct"]) for r in unlogged]
       if unlogged else ""))
def saturated(r):
    return ratio.get(r["time"]) not in ("", None) and float(ratio[r["time"]]) >= 0.95
contended = [r for r in mine if saturated(r)]
calm = [r for r in mine if not saturated(r)]
use = calm if len(calm) >= 20 else mine
want = rule_busy.typical([hundredths(r) for r in use])
mx = p["mixed"]
say(mx["contended_readings"] == len(contended) and mx["readings"] == len(use),
    "mixed: %d readings, %d of them in saturated pairs, contended; %d counted (the analyzer: %d, %d)"
    % (len(mine), len(contended), len(use), mx["contended_readings"], mx["readings"]))
under = len(calm) < 20 and len(contended) > 0
say(mx["measured_under_contention"] == under and mx["typical_pct"] == want,
    "mixed: TYPICAL %s%% from %s readings (%d calm), measured under contention: %s (the analyzer: %s%%, %s)"
    % (want, "its calm" if use is calm else "all its", len(calm), under,
       mx["typical_pct"], mx["measured_under_contention"]))
if not mine:
    # a machine so busy that no worker was idle when read: php-fpm's own
    # states must say so (a worker idle after a request since its last
    # read; one first seen is primed, as in the first round)
    last, idle = {}, []
    for r in sorted((r for r in reads if r["pool"] == "mixed"), key=lambda r: r["time"]):
        if r["state"] == "Idle" and last.get(r["pid"], int(r["requests"])) != int(r["requests"]):
            idle.append(r)
        last[r["pid"]] = int(r["requests"])
    say(not idle, "mixed: no reading, as php-fpm's states say: no worker was idle after a request "
        "since its last read (%d were)" % len(idle))
print("note case: host %.0f%% busy before the test; mixed: %d readings, %d contended; its rounds' busy "
      "ratios %s" % (100 * before, len(mine), len(contended),
                     [ratio[t] for t in sorted(ratio) if ratio[t] not in ("", None)]))
PY
check "the python step ran" $?
while read -r verdict rest; do
    case $verdict in
    note) echo "record load: $rest" ;;
    *) [ "$verdict" = ok ]; check "$rest" $? ;;
    esac
done < "$dir/checks"
summary "record load"
