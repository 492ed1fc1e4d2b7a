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
// 70 ms of CPU, then 30 ms asleep: a request whose CPU share is about 70%
$t = microtime(true);
while (microtime(true) - $t < 0.07) {}
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
grep -F "$want" "$dir/full.out" | grep -q 'state=Idle requests=1 duration=1[0-9][0-9][0-9][0-9][0-9] '
check "the POST worker: idle, 1 request, ~100 ms" $?
cpu=$(grep -F "$want" "$dir/full.out" | sed 's/.* cpu=\([0-9]*\) .*/\1/')
[ "$cpu" -ge 4000 ] && [ "$cpu" -le 10000 ]; check "70 ms busy + 30 ms asleep reads 40-100% ($cpu)" $?
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
