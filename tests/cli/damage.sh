#!/bin/sh
# Damage is said: truncations and flipped bytes of a log written with
# 5-minute frames (a cut of the bundled log: 240 rounds, 24 frames) are
# analyzed, and what each cost is said, in rounds and time; nothing is
# silent.  Exact figures: the rounds read plus the rounds said lost are the
# log's 240.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
T=$(mktemp -d /tmp/fpmcpu-damage.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM
pass=0 fail=0
ok() { pass=$((pass + 1)); }
no() { echo "FAIL: damage: $*" >&2; fail=$((fail + 1)); }
bin/fpm-analyze cut -q -o "$T/log" fixtures/logs/realistic.fpmlog.zst || { no "cut"; exit 1; }
size=$(stat -c %s "$T/log")
# where the frames end: the index cut writes after them begins there
# (fpmlog(5), "The index"; its footer says its size)
frames_end=$((size - $(tail -c 48 "$T/log" | sed -n 's/^fpmidx1 crc=[0-9a-f]* total=0*\([0-9]*\)$/\1/p')))
run() { bin/fpm-analyze "$1" >"$T/out" 2>"$T/err"; echo $? >"$T/rc"; }
rounds() { sed -n '1s/.*), \([0-9]*\) rounds.*/\1/p; 1s/.* \([0-9]*\) rounds (.*/\1/p' "$T/out" | head -1; }
said() { grep -q -- "$1" "$T/err"; }

# cut to 2/3: the open frame is said, with the rounds read from it
head -c $((size * 2 / 3)) "$T/log" >"$T/t23"
run "$T/t23"
if [ "$(cat "$T/rc")" = 0 ] && said "the last zstd frame ends mid-block at offset [0-9]* (a recorder still writing, or a file cut short): [0-9]* rounds\{0,1\} read from it"; then ok; else no "2/3: $(cat "$T/err")"; fi
# cut to 5,000 bytes: said, and nothing to analyze
head -c 5000 "$T/log" >"$T/t5k"
run "$T/t5k"
if said "the last zstd frame ends mid-block at offset" && { [ "$(cat "$T/rc")" = 0 ] || said "nothing to read"; }; then ok; else no "5000: $(cat "$T/err")"; fi
# 8 flipped bytes at 60,000: the rounds lost are counted, between two times
cp "$T/log" "$T/flip"
printf '\336\255\276\357\336\255\276\357' | dd of="$T/flip" bs=1 seek=60000 conv=notrunc 2>/dev/null
run "$T/flip"
lost=$(sed -n 's/.*: \([0-9]*\) damaged record(s) skipped; \([0-9]*\) rounds\{0,1\} lost, between \(20[0-9T:-]*Z\) and \(20[0-9T:-]*Z\)$/\2/p' "$T/err")
if [ -n "$lost" ] && [ $(( $(rounds) + lost )) = 240 ]; then ok; else no "flip: $(rounds) rounds read, lost '$lost': $(tail -2 "$T/err")"; fi
# a flip in the last frame: what follows it to the end is said lost
[ "$frames_end" -lt "$size" ] || no "the cut has no index"
cp "$T/log" "$T/flipend"
printf '\336\255\276\357\336\255\276\357' | dd of="$T/flipend" bs=1 seek=$((frames_end - 3000)) conv=notrunc 2>/dev/null
run "$T/flipend"
if said "what follows it to the end of the file is lost (the last round read is of 20" ||
   said "rounds\{0,1\} lost, between"; then ok; else no "flip in the last frame: $(cat "$T/err")"; fi
# a flip in the index: no round lost and nothing said by a full read (it
# holds no records); a window says the index is damaged and prints what it
# prints over the whole log
cp "$T/log" "$T/flipidx"
printf 'XX' | dd of="$T/flipidx" bs=1 seek=$((frames_end + 60)) conv=notrunc 2>/dev/null
run "$T/flipidx"
if [ ! -s "$T/err" ] && [ "$(rounds)" = 240 ]; then ok; else no "flip in the index, full read: $(cat "$T/err")"; fi
w=$(bin/fpm-analyze --format json --from @1795994000 "$T/log" 2>/dev/null)
bin/fpm-analyze --format json --from @1795994000 "$T/flipidx" >"$T/out" 2>"$T/err"
if said "offset $frames_end: damaged index (bad CRC), its frames found by reading them" &&
   [ "$(cat "$T/out")" = "$w" ] && [ -n "$w" ]; then ok; else no "flip in the index, window: $(cat "$T/err")"; fi
# the whole log: no word about damage
run "$T/log"
if [ ! -s "$T/err" ] && [ "$(rounds)" = 240 ]; then ok; else no "whole log: $(cat "$T/err")"; fi
echo "damage: $pass passed, $fail failed"
[ "$fail" = 0 ]
