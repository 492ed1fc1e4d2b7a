#!/bin/sh
# Sections 14 and 15 on a real php-fpm 8.2 with opcache on:
#   mem:   each request holds 32 MiB to its end and computes 150 ms;
#   small: each holds 1 MiB and computes 60 ms.
# Recorded at 1 s (memory needs no pair of rounds), then:
#   - W of mem lies between its 32 MiB and 32 MiB + 25%, and small's W is
#     far below opcache's segment (128 MiB, the default): the segment,
#     shared, is not charged to each worker;
#   - the bounds of advise against a real sweep: the pool driven at
#     concurrency 1, 2 and 4 by a bounded load generator.  The bounds'
#     shape, min(N, knee) times the bound at 1, is never below the measured
#     throughput (as a multiple of the measured throughput at 1) by more
#     than 10%; from the knee on the measured rate is within 25% of the
#     bound at the knee (the host's CPU over each request's, which no wait
#     moves); the bound at 1 itself within 25% of the measured.  The shape, not the absolute rate: the
#     recording and the sweep run at different moments, and on a shared
#     machine the same request computes 10-15% slower in one than in the
#     other (cache, steal) with no wait that schedstat would see (CI: 185 ms
#     per request recorded, 165 ms in the sweep a few seconds later);
#   - advise end to end: its diff applied with patch -p1 -d DIR to a copy
#     of the configuration, php-fpm8.2 -t on it, php-fpm restarted with it,
#     and the new pm.max_children on the status page.
# As root php-fpm runs in a cgroup v1 cpu group of the highest cpu.shares
# (made here and removed after), so other load on the machine does not
# stand between its workers and the CPU; otherwise the sweep's lower bound
# is not checked (said).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/integration/fpm.sh"
. "$top/tests/integration/check.sh"
dir=$(mktemp -d /tmp/fpmcpu-memory.XXXXXX)
cg=/sys/fs/cgroup/cpu/fpmcpu-mem-$$
load=$top/tests/integration/fcgi_load.py
script=$top/tests/integration/mem.php
chmod 755 "$dir"
cleanup() {
    touch "$dir/stop"
    fpm_stop "$dir"
    wait
    cg_remove "$cg"
    [ -n "${KEEP:-}" ] || rm -rf "$dir"
}
trap cleanup EXIT INT TERM
shares=0
if cg_first "$cg"; then
    shares=1
    cg_wrap "$dir/incg" "$cg"
    FPM_WRAP=$dir/incg
fi
printf '[mem]\nlisten = %s/mem.sock\npm = static\npm.max_children = 6\npm.status_path = /status\npm.status_listen = %s/mem-status.sock\nphp_admin_value[opcache.enable] = 1\n' \
    "$dir" "$dir" > "$dir/mem.conf"
printf '[small]\nlisten = %s/small.sock\npm = static\npm.max_children = 2\npm.status_path = /status\npm.status_listen = %s/small-status.sock\n' \
    "$dir" "$dir" > "$dir/small.conf"
FPM_WRAP=${FPM_WRAP:-} fpm_start "$dir" "$dir/mem.conf" "$dir/small.conf"
check "php-fpm starts (in a cpu group of the highest shares: $shares)" $?

# the recording: 2 clients on mem (the cores), 1 on small, idle 100 ms
# between requests so that the recorder finds idle workers
# (the clients in the group too: starved beside make mutate, small's one
# client once sent too few requests for 20 memory readings)
${FPM_WRAP:-} python3 "$load" "$dir/mem.sock" "$script" "mb=32&busy=150" 2 "$dir/stop" 100 &
${FPM_WRAP:-} python3 "$load" "$dir/small.sock" "$script" "mb=1&busy=60" 1 "$dir/stop" 100 &
sleep 1
"$top/bin/fpm-record" -q --fpm-config "$dir/fpm.conf" --interval 1s --rounds "${ROUNDS:-16}" \
    -o "$dir/log" 2>/dev/null
check "fpm-record exits 0" $?
touch "$dir/stop"
wait
used=$(fcgi "$dir/small.sock" /mem.php "$script" "opcache=1")
[ "${used:-0}" -gt 0 ] 2>/dev/null; check "opcache is on: its segment holds ${used:-0} bytes" $?
"$top/bin/fpm-analyze" --format json "$dir/log" > "$dir/json" 2>"$dir/an.err"
check "fpm-analyze reads the log" $?
"$top/bin/fpm-analyze" advise --format json "$dir/log" > "$dir/advise.json" 2>>"$dir/an.err"
check "fpm-analyze advise reads it" $?

# the sweep, right after: concurrency 1, 2 and 4 (past the knee of 2 cores), 3 s each after
# a second of warm-up; its client in the group too, as the recording's are:
# outside it, beside two burners, the client shared a core with them between
# the workers' turns, and 4 workers' requests came at 1.79x the rate of one
# where 2 cores give 2x (the sweep, not the recording, had moved)
for n in 1 2 4; do
    echo "$n $(${FPM_WRAP:-} python3 "$load" --rate "$dir/mem.sock" "$script" "mb=32&busy=150" "$n" 3)"
done > "$dir/sweep"

python3 - "$dir" "$shares" <<'PY' > "$dir/checks"
import json, sys
d, shares = sys.argv[1], sys.argv[2] == "1"
MIB = 1048576
def say(ok, what):
    print(("ok " if ok else "FAIL ") + what)
host = json.load(open(d + "/json"))["hosts"][0]
pools = {p["pool"]: p for p in host["pools"]}
mem, small = pools["mem"]["memory"], pools["small"]["memory"]
w = mem["per_worker_bytes"]
say(w is not None and 32 * MIB <= w <= 40 * MIB,
    "mem: W lies between its 32 MiB and 40 MiB (%s MiB of %d readings, the largest %.1f MiB)"
    % (w and w / MIB, mem["readings"], (mem["max_bytes"] or 0) / MIB))
ws = small["per_worker_bytes"]
say(ws is not None and ws <= 16 * MIB,
    "small: W %s MiB, under 16 MiB: opcache's shared segment is not charged to each worker"
    % (ws and ws / MIB))
adv = {a["pool"]: a for a in json.load(open(d + "/advise.json"))["advise"]}["mem"]
say(adv["advice"] is not None and adv["binds"] == "cpu",
    "mem: an advice, the CPU binding it (now %s, cpu %s, memory %s, advice %s)"
    % (adv["now"], adv["cpu_ceiling"], adv["mem_ceiling"], adv["advice"]))
b = {round(x["workers"], 2): x["max_rps"] for x in adv["bounds"]}
knee = adv["knee"]
one, top = b.get(1.0), b.get(round(knee, 2)) if knee else None
say(one is not None and top is not None, "mem: bounds at 1 and at the knee %s" % knee)
notes = []
sweep = [line.split() for line in open(d + "/sweep")]
rps1 = float(sweep[0][1])
say(sweep[0][0] == "1" and rps1 > 0 and 0.75 * rps1 <= one <= rps1 / 0.75,
    "sweep at 1: the bound %.2f req/s within 25%% of the measured %.2f" % (one, rps1))
for n, rps, ms in sweep:
    n, rps = int(n), float(rps)
    bound = min(n * one, top)
    # as multiples of the rate at 1: the bound's min(N, knee), the measured rps(N) / rps(1)
    shape, meas = bound / one, rps / rps1
    say(shape >= meas / 1.10,
        "sweep at %d: the bounds' %.2fx the rate at 1 is not below the measured %.2fx by "
        "more than 10%%" % (n, shape, meas))
    if n >= knee and shares:
        # past the knee the bound is the host's CPU over each request's CPU
        # (the knee's N* = C x R / D and R / D cancel): no wait moves it.
        # As a multiple of the rate at 1 it is not: beside two burners the
        # recording's requests took 186 ms for 150 ms of CPU where the
        # sweep's took 150 (the bound at 1 20% low, the knee 2.5 on 2 cores
        # 25% high), and the shape's check failed on a sweep at 1.85x
        say(rps >= 0.75 * top,
            "sweep at %d (knee %.2f): the measured %.2f req/s within 25%% of the bound at the "
            "knee, %.2f req/s" % (n, knee, rps, top))
    notes.append("%d: %.2f req/s (bound %.2f), median %s ms" % (n, rps, bound, ms))
print("note W %.1f MiB (mem, 32 MiB held), %.1f MiB (small); knee %s; sweep %s"
      % (w / MIB if w else -1, ws / MIB if ws else -1, knee, "; ".join(notes)))
if not shares:
    print("note not root: the sweep's lower bound (within 25% from the knee on) is not checked")
open(d + "/patch", "w").write(adv["patch"] or "")
open(d + "/advice", "w").write(str(adv["advice"]))
PY
check "the python step ran" $?
verdicts "$dir/checks" "record memory"

# advise end to end: the diff on a copy of the configuration under root/
advice=$(cat "$dir/advice")
mkdir -p "$dir/root$dir"
cp "$dir/fpm.conf" "$dir/root$dir/fpm.conf"
[ -s "$dir/patch" ]; check "advise gave mem a diff" $?
head -1 "$dir/patch" | grep -q "^--- a${dir}/fpm.conf$"; check "the diff names the pool's file without its leading /" $?
patch -p1 -d "$dir/root" < "$dir/patch" > "$dir/patch.out" 2>&1
check "patch -p1 -d DIR applies it" $?
grep -q "^pm.max_children = $advice$" "$dir/root$dir/fpm.conf"; check "the line now says pm.max_children = $advice" $?
[ "$(diff "$dir/fpm.conf" "$dir/root$dir/fpm.conf" | grep -c '^[<>]')" = 2 ]
check "and no other line changed" $?
"$PHP_FPM" -t -y "$dir/root$dir/fpm.conf" $([ "$(id -u)" -eq 0 ] && echo -R) > "$dir/t.out" 2>&1
check "php-fpm8.2 -t accepts it" $?
fpm_stop "$dir"
${FPM_WRAP:-} "$PHP_FPM" -y "$dir/root$dir/fpm.conf" $([ "$(id -u)" -eq 0 ] && echo -R)
i=0; while [ ! -s "$dir/fpm.pid" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$dir/fpm.pid" ]; check "php-fpm restarts with it" $?
sleep 0.5
total=$(fcgi "$dir/mem-status.sock" /status /status "json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total processes"])')
[ "$total" = "$advice" ]; check "its status page shows $advice workers (static: pm.max_children) ($total)" $?
summary record_memory
