#!/bin/sh
# Section 19 on a real php-fpm 8.2 behind a real nginx, configured as real
# sites are (Debian's stock fastcgi_params: SCRIPT_NAME from
# $fastcgi_script_name, the path info split off): one pool "app" serves
#   /heavy.php/item/N          about 100 ms of CPU (N in the path info)
#   /archive/YEAR/light.php?id=N   about 30 ms (a short request: its ticks
#                              still land on it), under two year folders
#   /ajax.php?action=heavy&nonce=N  about 80 ms
#   /ajax.php?action=light&id=N     about 40 ms
# hit by the test's own client in known proportions (1, 3, 1, 3), each
# script measuring its own CPU with getrusage; and a second location, /fc/,
# Laravel's (try_files $uri $uri/ /fc/index.php?$query_string, Debian's
# fastcgi_params), that sends every path to one front controller, a pool
# "fc" whose access.log has the census's access.format (docs/rules.md 20.7):
# its index.php routes by path and method, GET /fc/product/ID 60 ms of
# CPU, GET /fc/category/ID 30 ms, POST /fc/cart 40 ms and GET /fc/cart 20
# ms (short), each request logging its route, its getrusage CPU and its
# wall time.  Recorded at 1 s with --route-param action, the routes must
# give each script's and action's share of the CPU within 5 points of what
# the scripts measured, fold the ids (/archive/{id}/light.php), show no
# other query; fc is censused from its access log (section 20): its routes
# are the visitor's paths with the method, ids folded, no /fc/index.php;
# each route's requests are exactly the requests the scripts served that
# its ACCESS records hold, its share of the CPU within 2 points of their
# getrusage, its measured p50 and p95 within 10% of their wall times.
# Then heavy.php computes 40% more (140 ms), and so does GET /fc/product/ID
# (84 ms), and the same load is recorded again: check against the first
# recording's JSON fails naming /heavy.php and GET /fc/product/{id}, and no
# other route.
# As root, php-fpm, nginx and the client run in a cgroup v1 cpu group of
# the highest cpu.shares (made here, removed after), so that the other load
# on the machine leaves the recording its readings.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/integration/fpm.sh"
. "$top/tests/integration/check.sh"
ROUNDS=${ROUNDS:-40}
dir=$(mktemp -d /tmp/fpmcpu-routes.XXXXXX)
cg=/sys/fs/cgroup/cpu/fpmcpu-routes-$$
cleanup() {
    touch "$dir/stop"
    [ -s "$dir/nginx.pid" ] && kill "$(cat "$dir/nginx.pid")" 2>/dev/null
    fpm_stop "$dir"
    wait
    cg_remove "$cg"
    [ -n "${KEEP:-}" ] || rm -rf "$dir"
}
trap cleanup EXIT INT TERM
chmod 755 "$dir"
wrap=""
if cg_first "$cg"; then cg_wrap "$dir/incg" "$cg"; wrap=$dir/incg; fi
if ! command -v nginx >/dev/null 2>&1; then
    echo "FAIL: no nginx (Debian: nginx)" >&2
    exit 1
fi

# the site: each script computes its ms of CPU (getrusage), then appends
# "KEY CPU_US" to the truth of its worker
www=$dir/www
mkdir -p "$www/archive/2024" "$www/archive/2025" "$www/fc" "$dir/truth"
chmod 777 "$dir/truth"
cat > "$dir/burn.inc" <<PHP
<?php
function cpu_us() { \$r = getrusage(); return \$r['ru_utime.tv_sec'] * 1000000 + \$r['ru_utime.tv_usec'] + \$r['ru_stime.tv_sec'] * 1000000 + \$r['ru_stime.tv_usec']; }
function burn(\$key, \$ms) {
    \$c0 = cpu_us();
    do { for (\$i = 0; \$i < 5000; \$i++) {} } while (cpu_us() - \$c0 < \$ms * 1000);
    file_put_contents('$dir/truth/' . getmypid(), sprintf("%s %d\n", \$key, cpu_us() - \$c0), FILE_APPEND);
    echo "ok";
}
PHP
printf '<?php require "%s/burn.inc"; burn("heavy", (int)file_get_contents("%s/heavy.ms"));\n' "$dir" "$dir" > "$www/heavy.php"
echo 100 > "$dir/heavy.ms"
for y in 2024 2025; do
    printf '<?php require "%s/burn.inc"; burn("light", 30);\n' "$dir" > "$www/archive/$y/light.php"
done
printf '<?php require "%s/burn.inc"; $a = $_GET["action"] ?? ""; burn("ajax-" . $a, $a === "heavy" ? 80 : 40);\n' "$dir" > "$www/ajax.php"
# the front controller: routes by path and method; each request appends
# "N METHOD ROUTE CPU_US WALL_US" to fctruth (N: the client's id, ?n=N)
mkdir -p "$dir/fctruth"; chmod 777 "$dir/fctruth"
cat > "$www/fc/index.php" <<PHP
<?php
\$t0 = microtime(true);
require "$dir/burn.inc";
\$m = \$_SERVER['REQUEST_METHOD'];
\$path = parse_url(\$_SERVER['REQUEST_URI'], PHP_URL_PATH);
if (preg_match('#^/fc/product/\\d+\$#', \$path)) { \$r = "GET /fc/product/{id}"; \$ms = (int)file_get_contents("$dir/product.ms"); }
elseif (preg_match('#^/fc/category/\\d+\$#', \$path)) { \$r = "GET /fc/category/{id}"; \$ms = 30; }
elseif (\$path === '/fc/cart' && \$m === 'POST') { \$r = "POST /fc/cart"; \$ms = 40; }
elseif (\$path === '/fc/cart') { \$r = "GET /fc/cart"; \$ms = 20; }
else { http_response_code(404); exit; }
\$c0 = cpu_us();
ob_start(); burn("fc", \$ms); ob_end_clean();
file_put_contents("$dir/fctruth/" . getmypid(), sprintf("%s %s %s %d %d\n", \$_GET['n'] ?? '-', \$m, \$r, cpu_us() - \$c0, (int)round((microtime(true) - \$t0) * 1e6)), FILE_APPEND);
echo "ok";
PHP
echo 60 > "$dir/product.ms"
chmod -R a+rX "$www" "$dir/burn.inc"; chmod a+r "$dir/heavy.ms" "$dir/product.ms"

for p in app fc; do
    printf '[%s]\nlisten = %s/%s.sock\nlisten.mode = 0666\npm = static\npm.max_children = %s\npm.status_path = /status\n' \
        "$p" "$dir" "$p" "$([ $p = app ] && echo 12 || echo 3)" > "$dir/$p.conf"
done
# fc's access log, in the census's format (20.7)
printf 'access.log = %s/$pool.access.log\naccess.format = "%%t %%p %%m %%{REQUEST_URI}e %%s %%{mili}d %%{kilo}M %%C%%%%"\n' \
    "$dir" >> "$dir/fc.conf"
FPM_WRAP=$wrap fpm_start "$dir" "$dir/app.conf" "$dir/fc.conf" || { cat "$dir/fpm.log" >&2; exit 1; }
check "php-fpm starts with pools app and fc" $?

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$dir/ngx"
cat > "$dir/nginx.conf" <<NGINX
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/nginx.err;
events { worker_connections 256; }
http {
    access_log off;
    client_body_temp_path $dir/ngx/body; fastcgi_temp_path $dir/ngx/fastcgi;
    proxy_temp_path $dir/ngx/proxy; uwsgi_temp_path $dir/ngx/uwsgi; scgi_temp_path $dir/ngx/scgi;
    server {
        listen 127.0.0.1:$port;
        root $www;
        # a front controller: every path is /fc/index.php (Laravel, Symfony)
        location ^~ /fc/ {
            try_files \$uri \$uri/ /fc/index.php?\$query_string;
            location ~ \.php\$ {
                include /etc/nginx/fastcgi_params;
                fastcgi_param SCRIPT_FILENAME \$document_root\$fastcgi_script_name;
                fastcgi_pass unix:$dir/fc.sock;
            }
        }
        # scripts, the path info split off (Debian's snippets/fastcgi-php.conf)
        location ~ [^/]\.php(/|\$) {
            fastcgi_split_path_info ^(.+?\.php)(/.*)\$;
            include /etc/nginx/fastcgi_params;
            fastcgi_param SCRIPT_FILENAME \$document_root\$fastcgi_script_name;
            fastcgi_param PATH_INFO \$fastcgi_path_info;
            fastcgi_pass unix:$dir/app.sock;
        }
    }
}
NGINX
$wrap nginx -c "$dir/nginx.conf" -g 'daemon on;' 2>"$dir/nginx.start"
check "nginx starts ($(cat "$dir/nginx.start"))" $?

# the client: 3 connections in turn through the paths, 20 ms apart
cat > "$dir/client.py" <<'PY'
import http.client, os, sys, threading, time
port, stop = int(sys.argv[1]), sys.argv[2]
paths = ["/heavy.php/item/%d", "/archive/2024/light.php?id=%d", "/archive/2025/light.php?id=%d",
         "/archive/2024/light.php?id=%d&page=2", "/ajax.php?action=heavy&nonce=%d",
         "/ajax.php?action=light&id=%d", "/ajax.php?id=%d&action=light", "/ajax.php?action=light&id=%d",
         "/fc/product/%d?n=%d", "/fc/category/%d?n=%d", ("POST", "/fc/cart?n=%d"), "/fc/cart?n=%d"]
def loop(k):
    n = k
    while not os.path.exists(stop):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        p = paths[n % len(paths)]
        method, uri = p if isinstance(p, tuple) else ("GET", p)
        try:  # every %d the request's id: the front controller's ?n= names it
            if method == "POST":
                c.request(method, uri.replace("%d", str(1000 + n)), body="qty=1",
                          headers={"Content-Type": "application/x-www-form-urlencoded"})
            else:
                c.request(method, uri.replace("%d", str(1000 + n)))
            c.getresponse().read()
        except OSError:
            time.sleep(0.05)
        c.close()
        n += 3
        time.sleep(0.02)
ts = [threading.Thread(target=loop, args=(k,), daemon=True) for k in range(3)]
for t in ts:
    t.start()
while not os.path.exists(stop):
    time.sleep(0.2)
PY
curl_ok=$(python3 -c '
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=10)
c.request("GET", "/heavy.php/item/7"); print(c.getresponse().read().decode())' "$port" 2>&1)
[ "$curl_ok" = ok ]; check "nginx passes /heavy.php/item/7 to php-fpm ($curl_ok)" $?

# record: N rounds at 1 s with the client on; the truth starts with it
record() {
    rm -f "$dir/stop" "$dir"/truth/* "$dir"/fctruth/*
    $wrap python3 "$dir/client.py" "$port" "$dir/stop" &
    sleep 1
    rm -f "$dir"/truth/* "$dir"/fctruth/*
    "$top/bin/fpm-record" -q --fpm-config "$dir/fpm.conf" --interval 1s --rounds "$ROUNDS" \
        -o "$1" 2>>"$dir/rec.err"
    check "fpm-record exits 0 ($1)" $?
    touch "$dir/stop"
    wait
    cat "$dir"/truth/* > "$1.truth"
    cat "$dir"/fctruth/* > "$1.fctruth"
}
record "$dir/base.log"
"$top/bin/fpm-analyze" --format json --route-param action "$dir/base.log" > "$dir/base.json" 2>"$dir/an.err"
check "fpm-analyze reads it" $?
"$top/bin/fpm-analyze" routes --route-param action "$dir/base.log" > "$dir/routes.txt" 2>>"$dir/an.err"
check "fpm-analyze routes reads it" $?
"$top/bin/fpm-analyze" routes --format json --route-param action "$dir/base.log" \
    > "$dir/routes.json" 2>>"$dir/an.err"
zstdcat "$dir/base.log" | grep -a -c '"request uri":"\\/heavy.php?"' > "$dir/heavy-uri" || true

zstd -dc "$dir/base.log" > "$dir/base.plain"
python3 - "$dir" <<'PY' > "$dir/checks"
import collections, json, math, re, sys
d = sys.argv[1]
def say(ok, what):
    print(("ok " if ok else "FAIL ") + what)
cpu = collections.Counter()
for line in open(d + "/base.log.truth"):
    k, c = line.split()
    cpu[k] += int(c)
app = {k: v for k, v in cpu.items() if k != "fc"}
total = sum(app.values())
truth = {"/heavy.php": app["heavy"], "/archive/{id}/light.php": app["light"],
         "/ajax.php?action=heavy": app["ajax-heavy"], "/ajax.php?action=light": app["ajax-light"]}
j = json.load(open(d + "/routes.json"))["routes"]
pools = {p["pool"]: p for p in j}
routes = {r["route"]: r for r in pools["app"]["routes"]}
say(set(routes) == set(truth),
    "app's routes are the three scripts and the two actions, the year folded, no other query "
    "(%s)" % sorted(routes))
for r, c in sorted(truth.items()):
    got = routes.get(r, {}).get("cpu_share_pct")
    want = 100.0 * c / total
    say(got is not None and abs(got - want) <= 5,
        "%s computes %s%% of the pool's CPU, the scripts' getrusage %.2f%% (within 5 points)"
        % (r, got, want))
    print("note %s: %s%% of its CPU for %.2f%% measured, %s readings, %s ms a request"
          % (r, got, want, routes.get(r, {}).get("readings"),
             routes.get(r, {}).get("cpu_ms_per_request")))
# fc, censused from its access log (section 20)
fc = {r["route"]: r for r in pools["fc"]["routes"]}
want = {"GET /fc/product/{id}", "GET /fc/category/{id}", "POST /fc/cart", "GET /fc/cart"}
say(set(fc) == want, "fc's routes are the visitor's paths with their methods, ids folded, no "
    "/fc/index.php (%s)" % sorted(fc))
say(not pools["fc"]["front_controller"], "fc is no longer one front controller's route")
data, i, lines = open(d + "/base.plain", "rb").read(), 0, []
while i < len(data):  # the log's ACCESS records of fc
    e = data.index(b"\n", i)
    h = data[i:e].split(b" ")
    n = int(h[5])
    if h[1] == b"ACCESS" and h[4] == b"fc":
        lines += data[e + 1:e + 1 + n].split(b"\n")[:-1]
    i = e + 1 + n + 1
truth = {}
for line in open(d + "/base.log.fctruth"):
    n, method, route_a, route_b, cpu, wall = line.split()  # the route is "METHOD PATH"
    truth[n] = (route_a + " " + route_b, int(cpu), int(wall))
own = [l for l in lines if b" GET /status?" in l]  # the recorder's own requests (2.4)
lines = [l for l in lines if b" GET /status?" not in l]
base = json.load(open(d + "/base.json"))["hosts"][0]["pools"]
fcpool = next(p for p in base if p["pool"] == "fc")
say(fcpool["source"] == "access_log" and fcpool["filtered"]["own"] == len(own),
    "fc is censused, the recorder's %d status requests in its access log are own (%s)"
    % (len(own), fcpool["filtered"]["own"]))
ids = [m.group(1).decode() for l in lines for m in [re.search(rb"[?&]n=(\d+)", l)] if m]
held = [truth[x] for x in ids if x in truth]
say(len(ids) == len(lines) and len(held) == len(ids) and len(ids) >= 100,
    "every line of fc's ACCESS records is a request its scripts served (%d lines, %d of them "
    "in the scripts' log)" % (len(lines), len(held)))
count, cpu, walls = collections.Counter(), collections.Counter(), collections.defaultdict(list)
for r, c, w in held:
    count[r] += 1
    cpu[r] += c
    walls[r].append(w / 1000.0)
total = sum(cpu.values())
def rank(v, q):
    v = sorted(v)
    return v[max(1, math.ceil(q * len(v) / 100)) - 1]
for r in sorted(want):
    f = fc.get(r, {})
    say(f.get("requests") == count[r], "%s: %s requests, the %d its scripts served that the "
        "recording holds" % (r, f.get("requests"), count[r]))
    share = 100.0 * cpu[r] / total if total else 0
    say(f.get("cpu_share_pct") is not None and abs(f["cpu_share_pct"] - share) <= 2,
        "%s computes %s%% of fc's CPU, its scripts' getrusage %.2f%% (within 2 points)"
        % (r, f.get("cpu_share_pct"), share))
    for k, q in (("p50_ms", 50), ("p95_ms", 95)):
        w = rank(walls[r], q) if walls[r] else 0
        say(f.get(k) is not None and abs(f[k] - w) <= 0.1 * w,
            "%s: measured %s %s ms, its scripts' wall time %.1f ms (within 10%%)"
            % (r, k[:3], f.get(k), w))
    print("note fc %s: %s requests, %s%% of the CPU for %.2f%% measured, p50 %s p95 %s ms for "
          "%.1f %.1f" % (r, f.get("requests"), f.get("cpu_share_pct"), share, f.get("p50_ms"),
                         f.get("p95_ms"), rank(walls[r], 50) if walls[r] else 0,
                         rank(walls[r], 95) if walls[r] else 0))
PY
check "the python step ran" $?
verdicts "$dir/checks" "record routes"
grep -q '^[^ ]* fc: [0-9]* requests in 4 routes, every one from its access log, by CPU$' "$dir/routes.txt"
check "the routes table counts fc's requests from its access log" $?
grep -q 'nonce\|id=\|page=' "$dir/routes.txt"; [ $? -ne 0 ]; check "no query but action= in any route" $?

# heavy.php and GET /fc/product/ID 40% heavier: check names them, and no
# other route
echo 140 > "$dir/heavy.ms"
echo 84 > "$dir/product.ms"
record "$dir/heavy.log"
"$top/bin/fpm-analyze" check --baseline "$dir/base.json" --route-param action "$dir/heavy.log" \
    > "$dir/check.out" 2>>"$dir/an.err"
rc=$?
[ $rc -eq 1 ]; check "check fails on the heavier heavy.php (exit $rc)" $?
grep -q '^[^ ]* app /heavy.php: cpu per request [0-9.]* ms -> [0-9.]* ms (+[0-9]*%)$' "$dir/check.out"
check "check names /heavy.php: $(grep ' /heavy.php:' "$dir/check.out")" $?
others=$(grep ' app /[^ ]*: cpu per request' "$dir/check.out" | grep -v ' app /heavy.php:')
[ -z "$others" ]; check "and no other route (${others:-none})" $?
grep -q '^[^ ]* fc GET /fc/product/{id}: cpu per request [0-9.]* ms -> [0-9.]* ms (+[0-9]*%)$' "$dir/check.out"
check "check names fc's GET /fc/product/{id}: $(grep ' fc GET /fc/product' "$dir/check.out")" $?
others=$(grep ' fc [A-Z]* /[^ ]*: cpu per request' "$dir/check.out" | grep -v ' fc GET /fc/product/{id}:')
[ -z "$others" ]; check "and no other of fc's routes (${others:-none})" $?
echo "record routes: $(grep ' app /heavy.php:' "$dir/check.out")"
# (fpm-analyze says what a 1 s recording lacks: its pairs give no host figures)
grep -v 'round pairs gave no host figures' "$dir/an.err" >&2
summary record_routes
