#!/bin/sh
# fpm-record against a hostile FastCGI peer (tests/integration/hostile_peer.py):
# a peer that closes at once, sends garbage, announces a 65535-byte record
# and closes, trickles a byte a second, sends a 100 MB body, never answers.
# Each pool's read ends within the timeout with an ERROR that says why, the
# recorder's memory stays under 24 MiB, and the analyzer reads the log.
# As root the peers and the recorder run in a cpu group of the highest
# cpu.shares (made here, removed after): the huge peer must send 16 MiB
# within the 2 s timeout, and beside a measuring script's group of the
# highest shares that loads both cores it got no CPU for 2 s (the ERROR
# said the timeout, not the size).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
. "$top/tests/integration/fpm.sh"
dir=$(mktemp -d /tmp/fpmcpu-hostile.XXXXXX)
cg=/sys/fs/cgroup/cpu/fpmcpu-hostile-$$
trap 'touch "$dir/stop"; kill $peer 2>/dev/null; wait 2>/dev/null; cg_remove "$cg"; rm -rf "$dir"' EXIT INT TERM
. "$top/tests/integration/check.sh"
wrap=""
if cg_first "$cg"; then
    cg_wrap "$dir/incg" "$cg"
    wrap=$dir/incg
fi

$wrap python3 tests/integration/hostile_peer.py "$dir" &
peer=$!
i=0
while [ ! -e "$dir/ready" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
pools=""
for k in close garbage bigrec trickle huge silent; do pools="$pools --pool $k=unix:$dir/$k.sock"; done
# shellcheck disable=SC2086
$wrap bin/fpm-record -q $pools --timeout 2s --interval 1s --rounds 2 -o "$dir/log" 2>"$dir/err" &
rec=$!
watch_rss $rec
wait $rec; check "fpm-record exits 0 against every hostile peer" $?
[ "$peak" -lt 24576 ]; check "peak RSS under 24 MiB ($peak KiB)" $?
zstdcat "$dir/log" > "$dir/plain"
why() { # POOL TEXT: both rounds' ERROR of POOL says TEXT
    n=$(grep -a -A1 "^#fpmlog1 ERROR [0-9]* [0-9]* $1 " "$dir/plain" | grep -a -c -E -- "$2")
    [ "$n" = 2 ]; check "$1: an ERROR each round: $2" $?
}
why close "connection closed before the response ended|Connection reset by peer|Broken pipe"
why garbage "not a FastCGI response"
why bigrec "connection closed before the response ended"
why trickle "timed out after 2000 ms waiting for the status page"
why huge "status page larger than 16777216 bytes"
why silent "timed out after 2000 ms waiting for the status page"
# each round ends within the timeout: 6 pools of at most 2 s each, 1 s slack
took=$(grep -a '^took_us=' "$dir/plain" | cut -d= -f2 | sort -n | tail -1)
[ "${took:-99999999}" -le 13000000 ]; check "the longest round took ${took} us, within 6 x 2 s" $?
[ "$(grep -c 'could not read its status page' "$dir/err")" = 6 ]; check "each pool said once on stderr" $?
[ "$(wc -l < "$dir/err")" = 6 ]; check "and nothing else" $?
bin/fpm-analyze --format json "$dir/log" > "$dir/json" 2>"$dir/aerr"
check "the analyzer reads the log" $?
python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))["hosts"][0]
sys.exit(0 if len(h["pools"]) == 6 and all(p["error_rounds"] == 2 for p in h["pools"]) else 1)
' "$dir/json"
check "and counts 2 error rounds for each of the 6 pools" $?
echo "hostile peer: peak RSS $peak KiB, longest round $took us"
summary "record hostile"
