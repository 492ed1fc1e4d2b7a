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
#          its first round primed; TYPICAL from the calm rounds and the
#          saturated ones counted as contended, or, when the machine was busy
#          before the test began (every round saturated), measured under
#          contention, TYPICAL from all of them and a floor (at most the
#          60% a request computes alone); on a machine so busy that no
#          worker was idle when read, no reading, as php-fpm's states say
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
# whose worker waited counts at its own share: record_wait.sh)
"$top/bin/tests/logdrop" SCHED < "$dir/log" > "$dir/log-nosched" 2>/dev/null
check "the log without its SCHED records" $?
"$top/bin/fpm-analyze" --format json --csv-rounds "$dir/rounds.csv" --csv-readings "$dir/readings.csv" \
    "$dir/log-nosched" > "$dir/json" 2>"$dir/an.err"
check "fpm-analyze reads the log" $?
"$top/bin/fpm-analyze" --format json --from "$from" "$dir/log-nosched" > "$dir/json-b" 2>>"$dir/an.err"
check "and its saturated window" $?
zstdcat "$dir/log" > "$dir/plain"
python3 - "$dir" "$before" "$phase_b" <<'PY' > "$dir/checks"
import csv, json, re, sys
d, before, phase_b = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
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
access = []
for line in open(d + "/mixed.access"):
    f = line.split()
    if len(f) == 4:
        access.append((int(f[3]), float(f[2].rstrip("%"))))
def bucket(shares):
    s = sorted(shares)
    m = s[(len(s) + 1) // 2 - 1]
    return 5 * int(m // 5), m
mx = p["mixed"]
calm_a = [r for r in rounds if r["pool"] == "mixed" and r["busy_ratio"] not in ("", None)
          and r["time"] < __import__("time").strftime("%Y-%m-%dT%H:%M:%S", __import__("time").gmtime(phase_b))]
calm = calm_a and all(float(r["busy_ratio"]) < 0.95 for r in calm_a) and before < 0.5
if calm and not mx["measured_under_contention"]:
    b, med = bucket([c for t, c in access if t < phase_b])
    say(mx["typical_pct"] == b, "calm, then saturated: mixed TYPICAL %s%% from its calm rounds, the bucket of "
        "the median %%C of php-fpm's access log before the burners (%.2f%%)" % (mx["typical_pct"], med))
    say(mx["contended_readings"] > 0, "and its %d readings of saturated rounds counted as contended"
        % mx["contended_readings"])
    print("note case: calm then saturated (host %.0f%% busy before the test)" % (100 * before))
else:
    # every round saturated (a busy machine, burners beside the test): what
    # the rules promise is the flag and a floor.  Each request computes 30
    # of its 50 ms when alone (60%); waiting for the CPU only lowers its
    # share, so TYPICAL is at most that bucket, and at least the lowest %C
    # php-fpm logged for a request of the pool.
    # A machine busier than that may leave no worker idle when read: then
    # there is no reading to take, and php-fpm's own states must say so.
    b, med = bucket([c for t, c in access])
    low = 5 * int(min(c for t, c in access) // 5) if access else 0
    if mx["readings"] == 0:
        # a worker idle after a request since its last read (one first seen
        # is primed, as in the first round)
        last, idle = {}, []
        for r in sorted((r for r in reads if r["pool"] == "mixed"), key=lambda r: r["time"]):
            if r["state"] == "Idle" and last.get(r["pid"], int(r["requests"])) != int(r["requests"]):
                idle.append(r)
            last[r["pid"]] = int(r["requests"])
        say(mx["typical_pct"] is None and not idle,
            "saturated throughout: mixed has no reading and no TYPICAL, as php-fpm's states say: "
            "no worker was idle after a request since its last read (%d were)" % len(idle))
    else:
        say(mx["measured_under_contention"] and low <= mx["typical_pct"] <= 60,
            "saturated throughout: mixed measured under contention, TYPICAL %s%% a floor: within %d%% "
            "(the lowest %%C php-fpm logged) and 60%% (30 of 50 ms alone); the median %%C of all its "
            "requests %.2f%%" % (mx["typical_pct"], low, med))
    print("note case: saturated throughout (host %.0f%% busy before the test; mixed: %d readings, %d "
          "contended, calm pairs %s)" % (100 * before, mx["readings"], mx["contended_readings"],
                                         [r["busy_ratio"] for r in calm_a]))
PY
check "the python step ran" $?
while read -r verdict rest; do
    case $verdict in
    note) echo "record load: $rest" ;;
    *) [ "$verdict" = ok ]; check "$rest" $? ;;
    esac
done < "$dir/checks"
summary "record load"
