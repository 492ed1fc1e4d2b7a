#!/bin/sh
# The fleet path: contrib/fleet/fpm-fleet analyzes three hosts' fixture logs
# in parallel and loads them into a real PostgreSQL (initdb in a temporary
# folder, a unix socket only, started and stopped here); the views of
# contrib/fleet/fleet.sql give the rows the fixtures call for.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
. "$top/tests/integration/check.sh"
. "$top/tests/integration/pg.sh"
dir=$(mktemp -d /tmp/fpmcpu-fleet.XXXXXX)
trap 'pg_stop "$dir"; rm -rf "$dir"' EXIT INT TERM
pg_start "$dir" || exit 1
db=$PGCONN
# a database an earlier version made: its schema 1 table, which the load upgrades
psql -X -q "$db" -v ON_ERROR_STOP=1 -f tests/integration/fleet-schema1.sql >/dev/null 2>&1
check "a schema 1 table to begin with" $?

# three hosts, one with a rotated log beside the current one, and a folder
# that holds no log
mkdir -p "$dir/logs/web1" "$dir/logs/web2" "$dir/logs/vps1" "$dir/logs/mem1" "$dir/logs/broken"
cp fixtures/logs/realistic.fpmlog.zst "$dir/logs/web1/web1.fpmlog.zst"
cp fixtures/logs/web2.fpmlog "$dir/logs/web2/web2.fpmlog.zst.1"
cp fixtures/logs/vps.fpmlog "$dir/logs/vps1/vps1.fpmlog.zst"
cp fixtures/logs/memory.fpmlog "$dir/logs/mem1/mem1.fpmlog.zst"
echo "not a log" > "$dir/logs/broken/notes.txt"
FPM_ANALYZE=$top/bin/fpm-analyze contrib/fleet/fpm-fleet -j 2 -o "$dir/csv" -d "$db" -r route "$dir/logs" \
    >"$dir/out" 2>"$dir/err"
rc=$?
[ $rc -eq 1 ]; check "a host whose logs cannot be read makes the exit status 1 ($rc)" $?
grep -q '^fpm-fleet: broken: fpm-analyze: .*notes.txt' "$dir/err"; check "and is said, by its folder" $?
grep -q '^fpm-fleet: 5 host(s) analyzed in [0-9]* s, 2 at a time$' "$dir/err"; check "the hosts analyzed are counted" $?
grep -q '^fpm-fleet: 9 row(s) of 4 host(s) loaded into fpm_pool, 15 route(s) into fpm_route$' "$dir/err"; check "the others' 9 pools are loaded, and their 15 routes" $?
grep -q "loaded into" "$dir/err" || cat "$dir/err" >&2

q() { psql -X -A -t -F '|' "$db" -c "$1" 2>&1; }
got=$(q "SELECT * FROM fleet_past_ceiling" | tr '\n' ' ')
[ "$got" = "web1|shop|cpu-bound|40|7|4 mem1|shop|cpu-bound|40|9|5 vps1|shop|cpu-bound|6|4|3 " ]
check "pools past their ceiling: web1 shop, mem1 shop, vps1 shop ($got)" $?
got=$(q "SELECT * FROM fleet_short_of_cpu" | tr '\n' ' ')
[ "$got" = "web1|4000|43872|10.97 mem1|4000|35892|8.97 vps1|2000|5972|2.99 " ]
check "hosts whose pools need more CPU than they have ($got)" $?
got=$(q "SELECT hostname, pool FROM fleet_overhead_unmeasured" | tr '\n' ' ')
[ "$got" = "mem1|api mem1|shop vps1|api vps1|shop " ]
check "pools whose overhead is not measured ($got)" $?
got=$(q "SELECT * FROM fleet_most_starved" | tr '\n' ' ')
[ "$got" = "web1|3|240 vps1|2|40 " ]; check "hosts with the most starved rounds ($got)" $?
got=$(q "SELECT count(*), count(DISTINCT hostname), min(schema), max(schema) FROM fpm_pool")
[ "$got" = "9|4|8|8" ]; check "9 rows, 4 hosts, schema 8 ($got)" $?
got=$(q "SELECT * FROM fleet_advice" | tr '\n' ' ')
[ "$got" = "web1|shop|40|6|memory|7|6 mem1|shop|40|9|cpu|9|55 web1|api|12|11|memory|35|12 " ]; check "pools past the advice, and what binds it ($got)" $?
got=$(q "SELECT memory_per_worker_bytes, memory_budget_bytes > 0 FROM fpm_pool WHERE hostname = 'mem1' AND pool = 'api'")
[ "$got" = "41943040|t" ]; check "and each pool's memory ($got)" $?
got=$(q "SELECT overhead IS NULL, fit_n IS NULL FROM fpm_pool WHERE hostname = 'web2' AND pool = 'api'")
[ "$got" = "t|t" ]; check "an empty field loads as NULL ($got)" $?
got=$(q "SELECT overhead_source, round(joint_slope::numeric, 2), joint_believed FROM fpm_pool WHERE hostname = 'web1' AND pool = 'shop'")
[ "$got" = "own|1.40|t" ]; check "the schema 1 table gained the joint columns ($got)" $?
got=$(q "SELECT cpu_ms_per_request > 0, knee > 0 FROM fpm_pool WHERE hostname = 'web1' AND pool = 'shop'")
[ "$got" = "t|t" ]; check "and the knee and the CPU per request ($got)" $?
got=$(q "SELECT cpus IS NULL, cpu_source FROM fpm_pool WHERE hostname = 'web1' AND pool = 'shop'")
[ "$got" = "t|host" ]; check "and where the cores come from ($got)" $?

got=$(q "SELECT pool, route, hosts FROM fleet_heaviest_routes LIMIT 3" | tr '\n' ' ')
[ "$got" = "shop|/buy|3 shop|/index.php?route=product/product|1 shop|/index.php?route=product/search|1 " ]
check "the heaviest routes across the fleet, by the cores they keep busy ($got)" $?
got=$(q "SELECT count(*) FROM fpm_route WHERE hostname = 'web1' AND pool = 'shop'")
[ "$got" = 5 ]; check "web1's shop by its route= parameter: 5 routes ($got)" $?

# loaded again: a host's rows replace its earlier ones; a host whose shop
# is censused from its access log (section 20) joins them
rm -rf "$dir/logs/broken"
mkdir -p "$dir/logs/web7"
cp fixtures/logs/census.fpmlog "$dir/logs/web7/web7.fpmlog"
FPM_ANALYZE=$top/bin/fpm-analyze contrib/fleet/fpm-fleet -d "$db" "$dir/logs" 2>"$dir/err2"
check "a second load exits 0" $?
got=$(q "SELECT count(*) FROM fpm_pool")
[ "$got" = 11 ]; check "a second load replaces, not adds ($got rows: 9 and web7's 2)" $?
got=$(q "SELECT pool, source, requests, measured_p50_ms, access_format FROM fpm_pool WHERE hostname = 'web7' ORDER BY pool" | tr '\n' ' ')
[ "$got" = "api|status_page||| shop|access_log|2560|170|usable " ]
check "web7's shop censused, its requests and what they measured ($got)" $?
got=$(q "SELECT route, requests, requests_per_s FROM fpm_route WHERE hostname = 'web7' AND pool = 'shop' ORDER BY requests DESC, route LIMIT 2" | tr '\n' ' ')
[ "$got" = "GET /product/{id}|1008|0.43 GET /category/{id}|528|0.22 " ]
check "and its routes by the visitor's path and method, with their requests ($got)" $?
got=$(q "SELECT route, requests, requests_per_s FROM fleet_heaviest_routes WHERE route = 'GET /product/{id}'" | tr '\n' ' ')
[ "$got" = "GET /product/{id}|1008|0.43 " ]
check "the heaviest routes count a census's requests ($got)" $?
got=$(q "SELECT count(*) FROM fpm_route WHERE hostname = 'web1' AND pool = 'shop'")
[ "$got" = 1 ]; check "and its routes: without -r route, web1's shop is one route ($got)" $?
summary "fleet"
