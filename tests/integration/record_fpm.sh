#!/bin/sh
# A real php-fpm 8.2 with three pools of known workloads, recorded by
# fpm-record over FastCGI and analyzed by fpm-analyze:
#   heavy  70 ms busy + 30 ms asleep per request (status via pm.status_listen)
#   light  10 ms busy + 90 ms asleep per request
#   quiet  no load: its only requests are the recorder's own status requests
# Prints the recorder's measured cost.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/integration/fpm.sh"
ROUNDS=${ROUNDS:-7}
INTERVAL=${INTERVAL:-5s}
dir=$(mktemp -d /tmp/fpmcpu-record.XXXXXX)
trap 'touch "$dir/stop"; fpm_stop "$dir"; rm -rf "$dir"' EXIT INT TERM
. "$top/tests/integration/check.sh"

cat > "$dir/burn.php" <<'PHP'
<?php
// busy for ?busy= ms, then asleep for ?sleep= ms
$busy = (int)($_GET['busy'] ?? 70) / 1000.0;
$t = microtime(true);
while (microtime(true) - $t < $busy) {}
usleep((int)($_GET['sleep'] ?? 30) * 1000);
echo "ok";
PHP
chmod 644 "$dir/burn.php"
pool() { # NAME EXTRA...
    n=$1; shift
    printf '[%s]\nlisten = %s/$pool.sock\npm = static\npm.max_children = 4\n' "$n" "$dir" > "$dir/$n.conf"
    for l in "$@"; do echo "$l" >> "$dir/$n.conf"; done
}
pool heavy "pm.status_path = /status" "pm.status_listen = $dir/heavy-status.sock"
pool light "pm.status_path = /fpm-status"
pool quiet "pm.status_path = /status"
fpm_start "$dir" "$dir/heavy.conf" "$dir/light.conf" "$dir/quiet.conf" || { cat "$dir/fpm.log" >&2; exit 1; }
cp "$dir/fpm.conf" "$dir/fpm-for-recorder.conf"

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
peak=0
while kill -0 $rec 2>/dev/null; do
    r=$(awk '/^VmHWM/ {print $2}' /proc/$rec/status 2>/dev/null)
    [ -n "$r" ] && peak=$r
    sleep 0.5
done
wait $rec; check "fpm-record exits 0" $?
touch "$dir/stop"; wait
[ ! -s "$dir/rec.err" ] || { echo "recorder said:" >&2; cat "$dir/rec.err" >&2; }

"$top/bin/fpm-analyze" --format json "$dir/log" > "$dir/json" 2>"$dir/an.err"
check "fpm-analyze reads the log" $?
[ ! -s "$dir/an.err" ]; check "no damage reported" $?
python3 - "$dir/json" "$ROUNDS" <<'PY' > "$dir/checks"
import json, sys
d = json.load(open(sys.argv[1]))
h = d["hosts"][0]
p = {x["pool"]: x for x in h["pools"]}
def say(ok, what):
    print(("ok " if ok else "FAIL ") + what)
say(h["rounds"] == int(sys.argv[2]), "rounds %d" % h["rounds"])
hv, lt, qt = p["heavy"], p["light"], p["quiet"]
say(hv["readings"] >= 10, "heavy has readings (%d)" % hv["readings"])
say(55 <= (hv["typical_pct"] or 0) <= 75, "heavy TYPICAL %s%% is 55-75%%" % hv["typical_pct"])
say(lt["readings"] >= 5, "light has readings (%d)" % lt["readings"])
say((lt["typical_pct"] if lt["typical_pct"] is not None else 99) <= 15,
    "light TYPICAL %s%% is at most 15%%" % lt["typical_pct"])
say(qt["readings"] == 0, "quiet: the recorder's requests give no reading (%d)" % qt["readings"])
say(qt["filtered"]["own"] >= int(sys.argv[2]) - 2,
    "quiet: the recorder's requests are counted as own (%d)" % qt["filtered"]["own"])
say(qt["filtered"]["short"] == 0, "quiet: none of them fell to the 50 ms rule instead")
say(hv["filtered"]["own"] == 0, "heavy: status_listen takes no worker (own %d)" % hv["filtered"]["own"])
say(hv["max_children"] == 4 and lt["max_children"] == 4, "pm.max_children from the config")
PY
while read -r verdict rest; do
    [ "$verdict" = ok ]; check "$rest" $?
done < "$dir/checks"
[ "$(stat -c %a "$dir/log")" = 600 ]; check "the log is mode 0600" $?
zstdcat "$dir/log" > "$dir/plain"
grep -q s3cret "$dir/plain"; [ $? -ne 0 ]; check "--redact-query: no query string in the log" $?
grep -q '"request uri":"\\/burn.php"' "$dir/plain"; check "--redact-query keeps the path" $?

# the recorder's cost, as measured
self=$(grep -a '^self_cpu_us=' "$dir/plain" | tail -1 | cut -d= -f2)
took=$(grep -a '^took_us=' "$dir/plain" | cut -d= -f2 | sort -n | tail -1)
size=$(stat -c %s "$dir/log")
workers=$(grep -a -c '^[0-9]* (php-fpm8.2)' "$dir/plain")
echo "recorder: $ROUNDS rounds of 3 pools at $INTERVAL; CPU $((self / ROUNDS)) us per round; longest round $took us;" \
     "peak RSS $peak KiB; log $size bytes, $((size / workers)) bytes per worker per round"
summary "record php-fpm"
