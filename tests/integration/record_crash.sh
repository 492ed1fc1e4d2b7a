#!/bin/sh
# Crash safety: fpm-record is killed with SIGKILL at random moments, KILLS
# times, each run appending to the same log, then stopped cleanly once.  Every
# round that was closed must read back, each run's rounds numbered 1..k with
# no gap, every frame closed again (the next start repairs what a kill left
# open), and the analyzer must report no damage.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/integration/fpm.sh"
KILLS=${KILLS:-15}
# make torture: TORTURE=1 KILLS=1000 kills at any moment, also mid-start
# (0 to 1.2 s after the launch: at the first round, or just after)
TORTURE=${TORTURE:-0}
dir=$(mktemp -d /tmp/fpmcpu-crash.XXXXXX)
trap 'fpm_stop "$dir"; rm -rf "$dir"' EXIT INT TERM
. "$top/tests/integration/check.sh"
printf '[www]\nlisten = %s/www.sock\npm = static\npm.max_children = 3\npm.status_path = /status\n' \
    "$dir" > "$dir/www.conf"
fpm_start "$dir" "$dir/www.conf" || { cat "$dir/fpm.log" >&2; exit 1; }

# the kill moments: a fixed pseudo-random sequence, 0.2 to 2.7 s
if [ "$TORTURE" = 1 ]; then
    delays=$(awk -v n="$KILLS" 'BEGIN { srand(11); for (i = 0; i < n; i++) printf "%.3f ", rand() * 1.2 }')
    interval=1s
else
    delays=$(awk -v n="$KILLS" 'BEGIN { srand(7); for (i = 0; i < n; i++) printf "%.2f ", 0.2 + rand() * 2.5 }')
    interval=1s
fi
started=0
t0=$(date +%s)
# how many runs have their HOST on disk (an open frame reads up to its last
# flush; the size alone is not it: the start's repair of a frame a kill left
# open writes bytes before the HOST)
hosts() { zstdcat "$dir/log" 2>/dev/null | grep -a -c '^#fpmlog1 HOST '; }
for d in $delays; do
    before=$(hosts)
    "$top/bin/fpm-record" -q --pool "www=unix:$dir/www.sock" --interval $interval -o "$dir/log" 2>>"$dir/rec.err" &
    pid=$!
    # the kill moment counts from this run's HOST being on disk, so a slow
    # start on a busy machine still writes it (at most 30 s); torture kills
    # at any moment
    i=0
    while [ "$TORTURE" != 1 ] && [ "$(hosts)" = "$before" ] && [ $i -lt 300 ]; do
        sleep 0.1; i=$((i + 1))
    done
    sleep "$d"
    kill -KILL $pid
    wait $pid 2>/dev/null
done
"$top/bin/fpm-record" -q --pool "www=unix:$dir/www.sock" --interval 1s --rounds 2 -o "$dir/log" \
    2>>"$dir/rec.err"
check "the last run exits 0" $?

zstd -t -q "$dir/log"; check "every frame is closed again (zstd -t)" $?
zstdcat "$dir/log" > "$dir/plain" 2>/dev/null
"$top/bin/fpm-analyze" --format json "$dir/log" > "$dir/json" 2>"$dir/an.err"
check "the analyzer reads the log" $?
# (1 s rounds give no host figures, and that is said: not damage)
grep -v 'round pairs gave no host figures' "$dir/an.err" > "$dir/damage"
[ ! -s "$dir/damage" ]; check "no damage reported" $?
[ -s "$dir/damage" ] && cat "$dir/damage" >&2
python3 - "$dir/plain" "$dir/json" "$KILLS" "$TORTURE" <<'PY' > "$dir/checks"
import json, re, sys
text = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
runs, seqs = 0, []
gaps = 0
for line in text.split("\n"):
    if line.startswith("#fpmlog1 HOST "):
        runs += 1
        last = 0
    m = re.match(r"seq=(\d+)$", line)
    if m:
        n = int(m.group(1))
        gaps += n != last + 1
        last = n
        seqs.append(n)
rounds = json.load(open(sys.argv[2]))["hosts"][0]["rounds"]
if sys.argv[4] == "1":  # a run killed before its start was on disk wrote no HOST
    print(("ok" if 1 <= runs <= int(sys.argv[3]) + 1 else "FAIL") + " at most one HOST per run (%d)" % runs)
else:
    print(("ok" if runs == int(sys.argv[3]) + 1 else "FAIL") + " one HOST per run (%d)" % runs)
print(("ok" if gaps == 0 else "FAIL") + " each run's rounds are 1..k with no gap (%d gaps)" % gaps)
print(("ok" if rounds == len(seqs) else "FAIL") +
      " the analyzer counts every closed round (%d of %d)" % (rounds, len(seqs)))
PY
check "the python step ran" $?
while read -r verdict rest; do [ "$verdict" = ok ]; check "$rest" $?; done < "$dir/checks"
[ "$(stat -c %a "$dir/log")" = 600 ]; check "the log is mode 0600" $?
repaired=$(grep -a -c '^repaired: ' "$dir/plain")
echo "crash: $KILLS kills in $(( $(date +%s) - t0 )) s, $repaired open frames repaired at the next start," \
     "$(grep -a -c '^seq=' "$dir/plain") rounds kept, $(stat -c %s "$dir/log") bytes"
summary "record crash"
