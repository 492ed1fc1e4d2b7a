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
dir=$(mktemp -d /tmp/fpmcpu-crash.XXXXXX)
trap 'fpm_stop "$dir"; rm -rf "$dir"' EXIT INT TERM
. "$top/tests/integration/check.sh"
printf '[www]\nlisten = %s/www.sock\npm = static\npm.max_children = 3\npm.status_path = /status\n' \
    "$dir" > "$dir/www.conf"
fpm_start "$dir" "$dir/www.conf" || { cat "$dir/fpm.log" >&2; exit 1; }

# the kill moments: a fixed pseudo-random sequence, 0.2 to 2.7 s
delays=$(awk -v n="$KILLS" 'BEGIN { srand(7); for (i = 0; i < n; i++) printf "%.2f ", 0.2 + rand() * 2.5 }')
for d in $delays; do
    before=$(stat -c %s "$dir/log" 2>/dev/null || echo 0)
    "$top/bin/fpm-record" -q --pool "www=unix:$dir/www.sock" --interval 1s -o "$dir/log" 2>>"$dir/rec.err" &
    pid=$!
    # the kill moment counts from the start being on disk, so a slow start
    # on a busy machine still writes its HOST (at most 30 s)
    i=0
    while [ "$(stat -c %s "$dir/log" 2>/dev/null || echo 0)" = "$before" ] && [ $i -lt 300 ]; do
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
python3 - "$dir/plain" "$dir/json" "$KILLS" <<'PY' > "$dir/checks"
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
print(("ok" if runs == int(sys.argv[3]) + 1 else "FAIL") + " one HOST per run (%d)" % runs)
print(("ok" if gaps == 0 else "FAIL") + " each run's rounds are 1..k with no gap (%d gaps)" % gaps)
print(("ok" if rounds == len(seqs) else "FAIL") +
      " the analyzer counts every closed round (%d of %d)" % (rounds, len(seqs)))
PY
check "the python step ran" $?
while read -r verdict rest; do [ "$verdict" = ok ]; check "$rest" $?; done < "$dir/checks"
repaired=$(grep -a -c '^repaired: ' "$dir/plain")
echo "crash: $KILLS kills, $repaired open frames repaired at the next start, $(grep -a -c '^seq=' "$dir/plain") rounds kept"
summary "record crash"
