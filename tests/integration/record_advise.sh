#!/bin/sh
# The host's advice as one (docs/rules.md 14.5) against the kernel's OOM
# killer, on a real php-fpm 8.2 with two pools in one cgroup v1 memory group
# with a limit (made here and removed after; root only, said and skipped
# otherwise).  Each request of both pools holds 40 MiB, computes 20 ms and
# sleeps 200 ms: I/O-bound pools whose CPU ceilings (some 40 workers each
# on 2 cores) together need far more than the group holds.
#   - recorded under load (2 clients a pool), advise gives each pool an
#     advice, memory binding both, and says how it shared the memory;
#   - both of its patches applied together with patch -p1 -d to a copy of
#     the configuration, php-fpm -t accepts it, php-fpm restarts with it,
#     and both pools run every worker at once, each request holding its
#     40 MiB: the kernel OOM-kills nothing;
#   - the same pools at their CPU ceilings, every worker busy: the kernel
#     OOM-kills, so that the first check cannot pass by accident.
# php-fpm and the clients also run in a cpu group of the highest
# cpu.shares, so that other load on the machine does not keep the workers
# from going idle between requests (each pool needs 20 memory readings).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/integration/fpm.sh"
. "$top/tests/integration/check.sh"
LIMIT_MIB=${LIMIT_MIB:-480}
mem_test record_advise "$LIMIT_MIB"
inc=""
if cg_first "$ccg"; then
    cg_wrap "$dir/incg" "$cg" "$ccg"
    cg_wrap "$dir/incpu" "$ccg"
    inc=$dir/incpu
else
    cg_wrap "$dir/incg" "$cg"
fi

# pool NAME N: its snippet, pm.max_children N
pool() {
    printf '[%s]\nlisten = %s/%s.sock\npm = static\npm.max_children = %s\npm.status_path = /status\n' \
        "$1" "$dir" "$1" "$2"
}
pool a 8 > "$dir/a.conf"
pool b 8 > "$dir/b.conf"
FPM_WRAP=$dir/incg fpm_start "$dir" "$dir/a.conf" "$dir/b.conf"
check "php-fpm starts in the group, two pools of 8" $?
cp "$dir/fpm.conf" "$dir/fpm.conf.orig"

# the recording: 2 clients a pool, 300 ms idle between requests so that the
# recorder finds idle workers
${inc} python3 "$load" "$dir/a.sock" "$script" "mb=40&busy=20&sleep=200" 2 "$dir/stop" 300 &
${inc} python3 "$load" "$dir/b.sock" "$script" "mb=40&busy=20&sleep=200" 2 "$dir/stop" 300 &
mem_record
"$top/bin/fpm-analyze" advise --format json "$dir/log" > "$dir/advise.json" 2>"$dir/an.err"
check "fpm-analyze advise reads the log" $?
"$top/bin/fpm-analyze" advise "$dir/log" > "$dir/advise.txt" 2>>"$dir/an.err"
"$top/bin/fpm-analyze" --format json "$dir/log" > "$dir/json" 2>>"$dir/an.err"

python3 - "$dir" <<'PY' > "$dir/checks"
import json, sys
d = sys.argv[1]
MIB = 1048576
def say(ok, what):
    print(("ok " if ok else "FAIL ") + what)
adv = {a["pool"]: a for a in json.load(open(d + "/advise.json"))["advise"]}
host = json.load(open(d + "/json"))["hosts"][0]
pools = {p["pool"]: p for p in host["pools"]}
m = host["memory"]
need = 0
for name in ("a", "b"):
    a, mem = adv[name], pools[name]["memory"]
    say(mem["per_worker_source"] == "measured",
        "%s: W measured (%s MiB of %d readings)" % (name, (mem["per_worker_bytes"] or 0) / MIB,
                                                   mem["readings"]))
    say(a["advice"] is not None and a["advice"] >= 1 and a["binds"] == "memory",
        "%s: an advice, memory binding it (now %s, cpu %s, memory %s, advice %s)"
        % (name, a["now"], a["cpu_ceiling"], a["mem_ceiling"], a["advice"]))
    say(a["patch"] is not None, "%s: a patch" % name)
    open("%s/%s.patch" % (d, name), "w").write(a["patch"] or "")
    open("%s/%s.advice" % (d, name), "w").write(str(a["advice"]))
    open("%s/%s.ceiling" % (d, name), "w").write(str(a["cpu_ceiling"]))
    if a["advice"] and mem["per_worker_bytes"]:
        need += a["advice"] * mem["per_worker_bytes"]
say(m["budget_bytes"] is not None and need <= m["budget_bytes"],
    "the advices together hold %.0f MiB of the %.0f MiB php-fpm can have"
    % (need / MIB, (m["budget_bytes"] or 0) / MIB))
ceil = sum(adv[n]["cpu_ceiling"] * pools[n]["memory"]["per_worker_bytes"] for n in ("a", "b"))
say(ceil > m["budget_bytes"], "the CPU ceilings together (%.0f MiB) do not fit in it" % (ceil / MIB))
print("note needs_fraction %s, room_fraction %s; needed at the advice %.0f MiB"
      % (m["needs_fraction"], m["room_fraction"], (m["needed_at_advice_bytes"] or 0) / MIB))
PY
check "the python step ran" $?
verdicts "$dir/checks" "record advise"
grep '^host .*CPU ceilings need' "$dir/advise.txt" | sed 's/^/record advise: /'

# both patches together, on a copy of the configuration under root/
mkdir -p "$dir/root$dir"
cp "$dir/fpm.conf" "$dir/root$dir/fpm.conf"
cat "$dir/a.patch" "$dir/b.patch" > "$dir/both.patch"
patch -p1 -d "$dir/root" < "$dir/both.patch" > "$dir/patch.out" 2>&1
check "patch -p1 -d DIR applies both diffs together" $?
"$PHP_FPM" -t -y "$dir/root$dir/fpm.conf" -R > "$dir/t.out" 2>&1
check "php-fpm8.2 -t accepts it" $?
fpm_stop "$dir"

# run N_A N_B CONF: both pools, every worker busy at once holding 40 MiB,
# for 4 s; prints the OOM kills it cost
run() {
    before=$(mem_kills)
    "$dir/incg" "$PHP_FPM" -y "$3" -R || return 1
    i=0; while [ ! -s "$dir/fpm.pid" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    sleep 0.5
    ${inc} python3 "$load" "$dir/a.sock" "$script" "mb=40&busy=20&sleep=1500" "$1" "$dir/stop" &
    ${inc} python3 "$load" "$dir/b.sock" "$script" "mb=40&busy=20&sleep=1500" "$2" "$dir/stop" &
    sleep 4
    touch "$dir/stop"
    wait
    rm -f "$dir/stop"
    fpm_stop "$dir"
    echo $(( $(mem_kills) - before ))
}
aa=$(cat "$dir/a.advice") ba=$(cat "$dir/b.advice")
k=$(run "$aa" "$ba" "$dir/root$dir/fpm.conf")
ka=$k
[ "$k" = 0 ]; check "at the advices ($aa and $ba workers, all busy at once): $k OOM kills" $?
ac=$(cat "$dir/a.ceiling") bc=$(cat "$dir/b.ceiling")
{ pool a "$ac"; fpm_user_lines; pool b "$bc"; fpm_user_lines; } > "$dir/pools.ceiling"
sed '/^\[a\]/,$d' "$dir/fpm.conf.orig" > "$dir/ceiling.conf"
cat "$dir/pools.ceiling" >> "$dir/ceiling.conf"
k=$(run "$ac" "$bc" "$dir/ceiling.conf")
[ "${k:-0}" -gt 0 ]; check "at the CPU ceilings ($ac and $bc workers, all busy): $k OOM kills" $?
echo "record advise: advices $aa and $ba ($ka OOM kills), CPU ceilings $ac and $bc ($k OOM kills), group of $LIMIT_MIB MiB"
summary record_advise
