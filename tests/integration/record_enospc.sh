#!/bin/sh
# ENOSPC: the log lives on a small tmpfs.  A first run writes 3 rounds; the
# log is then padded to a page boundary with a skippable frame (which readers
# skip), the disk is filled, and a second run starts on the full disk; later
# the disk is freed.  The recorder says so once, keeps running, says when it
# writes again, writes HOST and POOL again, and the log reads back with every
# round written before the failure and after the recovery.  Needs root
# (mount); skipped otherwise.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/integration/fpm.sh"
if [ "$(id -u)" -ne 0 ]; then
    echo "record enospc: 0 passed, 0 failed, 1 skipped (needs root to mount a tmpfs)"
    exit 0
fi
dir=$(mktemp -d /tmp/fpmcpu-enospc.XXXXXX)
mnt=$dir/small
mkdir "$mnt"
trap 'fpm_stop "$dir"; umount "$mnt" 2>/dev/null; rm -rf "$dir"' EXIT INT TERM
. "$top/tests/integration/check.sh"
mount -t tmpfs -o size=512k tmpfs "$mnt" || { echo "record enospc: 0 passed, 0 failed, 1 skipped (mount refused)"; exit 0; }
printf '[www]\nlisten = %s/www.sock\npm = static\npm.max_children = 3\npm.status_path = /status\n' \
    "$dir" > "$dir/www.conf"
fpm_start "$dir" "$dir/www.conf" || { cat "$dir/fpm.log" >&2; exit 1; }
rec() { "$top/bin/fpm-record" --pool "www=unix:$dir/www.sock" --interval 1s -o "$mnt/log" "$@"; }

rec --rounds 3 2>"$dir/rec1.err"; check "the first run writes 3 rounds" $?
python3 - "$mnt/log" <<'PY'
import os, struct, sys
size = os.path.getsize(sys.argv[1])
pad = (-(size + 8)) % 4096
with open(sys.argv[1], "ab") as f:  # a skippable frame up to the page boundary
    f.write(struct.pack("<II", 0x184D2A5E, pad) + b"\0" * pad)
PY
dd if=/dev/zero of="$mnt/fill" bs=4k 2>/dev/null     # the disk is full
rec --rounds 10 2>"$dir/rec.err" &
pid=$!
sleep 4
rm -f "$mnt/fill"                                     # and has room again
wait $pid; check "the recorder kept running and exits 0" $?
[ "$(grep -c 'could not write: No space left on device' "$dir/rec.err")" = 1 ]
check "the write error is said once" $?
grep -q 'writing again; [0-9]* round(s) were lost' "$dir/rec.err"; check "and when it writes again" $?
zstd -t -q "$mnt/log"; check "every frame in the log is whole (zstd -t)" $?
"$top/bin/fpm-analyze" --format json "$mnt/log" > "$dir/json" 2>"$dir/an.err"
check "the analyzer reads the log" $?
grep -v 'round pairs gave no host figures' "$dir/an.err" > "$dir/damage" # 1 s rounds: said, not damage
[ ! -s "$dir/damage" ]; check "no damage reported" $?
zstdcat "$mnt/log" > "$dir/plain"
seqs=$(grep -a '^seq=' "$dir/plain" | cut -d= -f2 | tr '\n' ' ')
case "$seqs" in "1 2 3 "*" 10 ") ok=0 ;; *) ok=1 ;; esac
check "the first run's rounds and the second run's last ones are there ($seqs)" $ok
[ "$(grep -a -c '^#fpmlog1 HOST ' "$dir/plain")" = 2 ]; check "HOST written again after the recovery" $?
rounds=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["hosts"][0]["rounds"])' "$dir/json")
[ "$rounds" = "$(echo $seqs | wc -w)" ]; check "the analyzer counts each of them ($rounds)" $?
sed 's/^/  recorder said: /' "$dir/rec.err"
summary "record enospc"
