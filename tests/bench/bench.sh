#!/bin/sh
# make bench: how fast fpm-analyze replays, and that its memory does not grow
# with the log's length.  A long log (a 16-core host, 3 pools of 24 workers,
# ROUNDS rounds) is written once to $BENCH_DIR, then replayed 1x and 8x (the
# same file given eight times is one history eight times as long).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${ROUNDS:-4000}
dir=${BENCH_DIR:-/tmp/fpmcpu-bench}
mkdir -p "$dir"
log=$dir/bench-$rounds.fpmlog.zst
if [ ! -s "$log" ]; then
    echo "writing a $rounds-round log to $log (once)..."
    python3 "$top/fixtures/simulate.py" --bench "$dir/bench.fpmlog" "$rounds"
    zstd -q -3 --rm -f "$dir/bench.fpmlog" -o "$log"
fi
plain=$(zstd -lv "$log" 2>/dev/null | awk '/Decompressed Size/ {gsub(/[(),]/, "", $0); for (i = 1; i <= NF; i++) if ($i == "B") print $(i-1)}' | head -1)
packed=$(stat -c %s "$log")
run() { # N copies
    set -- $(seq "$1" | sed "s|.*|$log|")
    /usr/bin/time -f '%e %M' "$top/bin/fpm-analyze" --format json "$@" 2>&1 >/dev/null | tail -1
}
echo "log: $rounds rounds, $packed bytes zstd, ${plain:-?} bytes decoded"
for n in 1 8; do
    best=""
    for try in 1 2 3; do
        r=$(run $n)
        t=${r% *}
        if [ -z "$best" ] || awk "BEGIN { exit !($t < ${best% *}) }"; then best=$r; fi
    done
    t=${best% *}; rss=${best#* }
    rate=$(awk "BEGIN { printf \"%.0f\", $n * $rounds / $t }")
    mb=$(awk "BEGIN { printf \"%.1f\", $n * ${plain:-0} / $t / 1000000 }")
    echo "${n}x: ${t} s (best of 3), $rate rounds/s, $mb MB/s decoded, peak RSS ${rss} KiB"
done
