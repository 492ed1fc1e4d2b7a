#!/bin/sh
# Starts a real php-fpm 8.2, sends it requests whose URIs hold quotes,
# backslashes, newlines, "\u0026" and non-UTF-8 bytes, captures its
# ?json&full status page and checks what the status parser reads from it.
#   --update   also copies the captured pages to fixtures/status/
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/integration/fpm.sh"
dump=$top/bin/tests/status_dump
dir=$(mktemp -d /tmp/fpmcpu-status.XXXXXX)
trap 'fpm_stop "$dir"; rm -rf "$dir"' EXIT INT TERM
. "$top/tests/integration/check.sh"

cat > "$dir/burn.php" <<'PHP'
<?php
// 70 ms of CPU time, then 30 ms asleep: at least 100 ms, about 70% on an idle CPU
function cpu_ms() {
    $r = getrusage();
    return ($r['ru_utime.tv_sec'] + $r['ru_stime.tv_sec']) * 1000.0 +
           ($r['ru_utime.tv_usec'] + $r['ru_stime.tv_usec']) / 1000.0;
}
$t = cpu_ms();
while (cpu_ms() - $t < 70) {}
usleep(30000);
echo "ok";
PHP
chmod 644 "$dir/burn.php"
cat > "$dir/www.conf" <<CONF
[www]
listen = $dir/www.sock
pm = static
pm.max_children = 3
pm.status_path = /status
access.log = $dir/access.log
access.format = "%m %{micro}d %C"
CONF
fpm_start "$dir" "$dir/www.conf" || { cat "$dir/fpm.log" >&2; exit 1; }

nasty=$(printf 'a=l1\nl2"x\\u0026/\\\377\376end')
fcgi "$dir/www.sock" /burn.php "$dir/burn.php" "plain=1" >/dev/null
fcgi "$dir/www.sock" /burn.php "$dir/burn.php" "$nasty" POST >/dev/null
fcgi "$dir/www.sock" /status /status "json&full" > "$dir/full.json"
fcgi "$dir/www.sock" /status /status "" > "$dir/plain.txt"
fcgi "$dir/www.sock" /wrong-status /wrong-status "json&full" > "$dir/notfound.txt"

"$dump" "$dir/full.json" > "$dir/full.out"; check "the real page parses" $?
grep -q '^listen_queue=0 workers=3$' "$dir/full.out"; check "listen queue 0 and 3 workers" $?
# php-fpm 8.2 escapes the URI ("\n", "\"", "\\", "\/") and drops invalid UTF-8
want='uri=/burn.php?a=l1\x0al2"x\x5cu0026/\x5cend'
grep -qF "$want" "$dir/full.out"; check "the escaped URI decodes to the bytes sent" $?
grep -F "$want" "$dir/full.out" | grep -q 'state=Idle requests=1 duration=[0-9]* '
check "the POST worker: idle, 1 request" $?
# what php-fpm itself logged for that request (a busy machine only stretches it)
dur=$(grep -F "$want" "$dir/full.out" | sed 's/.* duration=\([0-9]*\) .*/\1/')
cpu=$(grep -F "$want" "$dir/full.out" | sed 's/.* cpu=\([0-9]*\) .*/\1/')
[ "$dur" -ge 100000 ]; check "70 ms of CPU + 30 ms asleep lasts at least 100 ms ($dur us)" $?
logged=$(awk '$1 == "POST" { print $2, $3 }' "$dir/access.log")
python3 -c '
import sys
dur, cpu, ldur, lcpu = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4].rstrip("%"))
sys.exit(0 if abs(dur - ldur) <= 1000 and abs(cpu - lcpu * 100) <= 50 and cpu >= 100 else 1)
' "$dur" "$cpu" $logged
check "its duration and CPU share are what php-fpm logged (${dur} us, ${cpu}/100%; log: $logged)" $?
grep -q 'state=Running .* uri=/status?json&full$' "$dir/full.out"; check "the status request itself is running" $?
"$dump" "$dir/plain.txt" >/dev/null 2>&1; rc=$?; [ $rc -eq 3 ]; check "the plain-text page is no status page" $?
grep -q 'File not found' "$dir/notfound.txt"; check "a wrong status path answers File not found." $?
"$dump" "$dir/notfound.txt" >/dev/null 2>&1; rc=$?; [ $rc -eq 3 ]; check "File not found. is no status page" $?

if [ "${1:-}" = --update ]; then
    cp "$dir/full.json" "$top/fixtures/status/php82-full.json"
    cp "$dir/notfound.txt" "$top/fixtures/status/php82-notfound.txt"
    cp "$dir/plain.txt" "$top/fixtures/status/php82-plain.txt"
    echo "fixtures/status/ updated"
fi
summary "status pages"
