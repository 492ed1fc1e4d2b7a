#!/bin/sh
# fpm-record against the fixture /proc and /sys trees (fixtures/world) and a
# pool whose socket does not exist: the round goes on with an ERROR, the
# workers still come from the process table, the cgroup files and HOST facts
# are read from the tree.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
dir=$(mktemp -d /tmp/fpmcpu-world.XXXXXX)
trap 'rm -rf "$dir"' EXIT INT TERM
. "$top/tests/integration/check.sh"

bin/fpm-record --proc-root fixtures/world/proc --sys-root fixtures/world/sys \
    --pool www=unix:$dir/www.sock --pool 'api=unix:/nonexistent/api.sock,status=/fpm-status' \
    --interval 1s --rounds 2 -o "$dir/log" 2>"$dir/err"
check "exit 0 though no pool answered" $?
[ "$(grep -c 'could not read its status page' "$dir/err")" = 2 ]
check "each pool that cannot be read is said once, not every round" $?
grep -q "^fpm-record: pool api: could not read its status page: cannot connect to /nonexistent/api.sock: No such file or directory (an ERROR is recorded each round until it answers)$" "$dir/err"
check "and why" $?
grep -q "^fpm-record: --interval under 5s: " "$dir/err"; check "an interval under 5 s is warned about" $?
[ "$(grep -c '^fpm-record: pool [a-z]*: no access.log: its figures will be a sample' "$dir/err")" = 2 ]
check "each pool without an access log is said once, with the lines to add" $?
[ "$(wc -l < "$dir/err")" = 5 ]; check "nothing else on stderr" $?
[ "$(stat -c %a "$dir/log")" = 600 ]; check "the log is mode 0600" $?
zstd -t -q "$dir/log"; check "every frame closed (zstd -t)" $?
zstdcat "$dir/log" > "$dir/plain"
grep -q "^cpu_quota_millicores=1500$" "$dir/plain"; check "HOST quota from the cgroup's cpu.max" $?
grep -q "^cgroup=/system.slice/php8.2-fpm.service$" "$dir/plain"; check "HOST cgroup path" $?
grep -q "^boot_id=7d0c3b9e-1111-4222-8333-944455556666$" "$dir/plain"; check "HOST boot_id" $?
grep -q "^clocksource=tsc$" "$dir/plain"; check "HOST clocksource" $?
grep -q "^own_uri=/fpm-status$" "$dir/plain"; check "POOL lists its status path as own" $?
[ "$(grep -c '^#fpmlog1 ERROR ' "$dir/plain")" = 4 ]; check "an ERROR per pool per round" $?
grep -q "^cannot connect to /nonexistent/api.sock: No such file or directory$" "$dir/plain"
check "the ERROR says why" $?
[ "$(grep -c '^#fpmlog1 PIDS [0-9]* [0-9]* www ' "$dir/plain")" = 2 ]; check "PIDS of www each round" $?
grep -q '^102 (php fpm) x)) R 100 ' "$dir/plain"; check "PIDS hold /proc/<pid>/stat verbatim" $?
[ "$(grep -c '^#fpmlog1 SCHED [0-9]* [0-9]* www ' "$dir/plain")" = 2 ]; check "SCHED of www each round" $?
awk '/^#fpmlog1 (PIDS|SCHED) [0-9]+ [0-9]+ www / { print $2 }' "$dir/plain" | tr '\n' ' ' > "$dir/sched-order"
[ "$(cat "$dir/sched-order")" = "PIDS SCHED PIDS SCHED " ]; check "SCHED right after its PIDS ($(cat "$dir/sched-order"))" $?
grep -q '^101 7000000000 1500000000 4242$' "$dir/plain"; check "SCHED holds each worker's pid, then its schedstat" $?
grep -q '^102 1000000000 250000000 99$' "$dir/plain"; check "a schedstat without its newline gets one" $?
awk '/^#fpmlog1 (PIDS|STATM|SCHED) [0-9]+ [0-9]+ www / { print $2 }' "$dir/plain" | tr '\n' ' ' > "$dir/statm-order"
[ "$(cat "$dir/statm-order")" = "PIDS STATM SCHED PIDS STATM SCHED " ]
check "STATM right after its PIDS, SCHED after it ($(cat "$dir/statm-order"))" $?
grep -q '^101 24576 15000 2600 300 0 9000 0$' "$dir/plain"; check "STATM holds each worker's pid, then its statm" $?
grep -q '^102 24576 9000 2600 300 0 9000 0$' "$dir/plain"; check "a statm without its newline gets one" $?
[ "$(grep -c '^#fpmlog1 MEMINFO ' "$dir/plain")" = 2 ]; check "MEMINFO each round" $?
sed -n '/^#fpmlog1 MEMINFO /,/^$/p' "$dir/plain" | sed -n 2,7p | cut -d: -f1 | tr '\n' ' ' > "$dir/mi"
[ "$(cat "$dir/mi")" = "MemTotal MemFree MemAvailable Shmem SwapTotal SwapFree " ]
check "MEMINFO keeps its six lines, in the file's order ($(cat "$dir/mi"))" $?
grep -q '^page_size=4096$' "$dir/plain"; check "HOST page_size" $?
grep -q '^mem_limit_bytes=2147483648$' "$dir/plain"; check "HOST mem_limit_bytes: memory.max, below MemTotal" $?
for f in memory.max memory.stat memory.events; do
    [ "$(grep -c "^#fpmlog1 CGROUP [0-9]* [0-9]* $f " "$dir/plain")" = 2 ]; check "CGROUP $f each round" $?
done
[ "$(grep -c '^#fpmlog1 CGROUP [0-9]* [0-9]* cpu.stat ' "$dir/plain")" = 2 ]; check "CGROUP cpu.stat each round" $?
grep -q '^#fpmlog1 CGROUP [0-9]* [0-9]* cpu.pressure ' "$dir/plain"; check "CGROUP cpu.pressure" $?
grep -q '^intr' "$dir/plain"; [ $? -ne 0 ]; check "STAT keeps only the cpu lines" $?
[ "$(grep -c '^#fpmlog1 MASTER [0-9]* [0-9]* - ' "$dir/plain")" = 2 ]; check "a MASTER record each round" $?
grep -q '^100 (php-fpm8.2) S 1 100 ' "$dir/plain"; check "MASTER holds the master's /proc/<pid>/stat line" $?
awk '/^#fpmlog1 (MASTER|STATUS|ERROR|PIDS) / { print $2 }' "$dir/plain" | tr '\n' ' ' > "$dir/order"
[ "$(cat "$dir/order")" = "MASTER ERROR PIDS ERROR PIDS MASTER ERROR PIDS ERROR PIDS " ]
check "MASTER is read before the pools' STATUS and PIDS ($(cat "$dir/order"))" $?
grep -q '^seq=2$' "$dir/plain"; check "ROUND seq" $?
grep -q '^stop: 2 round(s) done$' "$dir/plain"; check "a NOTE at the stop" $?
bin/fpm-analyze --format json "$dir/log" > "$dir/json" 2>"$dir/aerr"
check "the analyzer reads it" $?

# --hostname: two hosts whose short names repeat stay two hosts
for h in web1.shop-a.example web1.shop-b.example; do
    bin/fpm-record --proc-root fixtures/world/proc --sys-root fixtures/world/sys -q \
        --pool www=unix:$dir/www.sock --interval 1s --rounds 1 --hostname $h -o "$dir/$h.log" 2>/dev/null
done
zstdcat "$dir/web1.shop-a.example.log" | grep -q '^hostname=web1.shop-a.example$'
check "--hostname is the HOST record's hostname" $?
bin/fpm-analyze --format json "$dir/web1.shop-a.example.log" "$dir/web1.shop-b.example.log" 2>/dev/null |
    python3 -c 'import json,sys; print(sorted(h["hostname"] for h in json.load(sys.stdin)["hosts"]))' > "$dir/hn"
[ "$(cat "$dir/hn")" = "['web1.shop-a.example', 'web1.shop-b.example']" ]
check "two logs with their own --hostname are two hosts ($(cat "$dir/hn"))" $?
grep -q '^cpus=1$' "$dir/plain"; check "HOST cpus: the master's CPU list (a cpuset of CPU 1)" $?
grep -q '^cgroup_version=2$' "$dir/plain"; check "HOST cgroup_version 2" $?
groups='"sched_group": {"autogroup": "/autogroup-54 nice 0", "cpu_weight": 100, "cpu_weight_kind": "weight", "cpu_controller": true}'
if [ "$(nproc)" -gt 1 ]; then want='"host_millicores": 1000, "cpus": 1, "cpu_source": "cpuset", '"$groups"', "rounds": 2'
else want='"host_millicores": 1500, "cpus": 1, "cpu_source": "quota", '"$groups"', "rounds": 2'; fi
grep -q "$want" "$dir/json"; check "analyzer: the cpuset (or on 1 CPU the quota) is the host, 2 rounds; the master's autogroup, cpu.weight and cpu controller (16.4)" $?
bin/fpm-record --proc-root fixtures/world/proc --sys-root fixtures/world/sys -n \
    --pool www=unix:$dir/www.sock > "$dir/n.out" 2>&1
grep -q "^php-fpm's master: pid 100, cgroup v2 /system.slice/php8.2-fpm.service$" "$dir/n.out"
check "-n: the master's cgroup" $?
if [ "$(nproc)" -gt 1 ]; then want="^php-fpm runs on CPUs 1 of $(nproc) (cpuset)$"; else want="^php-fpm runs on CPUs 1 of 1$"; fi
grep -q "$want" "$dir/n.out"; check "-n: the CPUs it runs on" $?
grep -q "^cgroup v2 quota 1.5 cores$" "$dir/n.out"; check "-n: the v2 quota" $?

# cgroup v1 (fixtures/world-v1 laid over the tree): cpu and cpuacct mounted
# apart, the quota from the cfs files, CGROUP cpu.stat and cpuacct.usage
cp -r fixtures/world "$dir/v1" && cp -r fixtures/world-v1/. "$dir/v1/"
bin/fpm-record --proc-root "$dir/v1/proc" --sys-root "$dir/v1/sys" -q \
    --pool www=unix:$dir/www.sock --interval 1s --rounds 2 -o "$dir/v1.log" 2>/dev/null
check "cgroup v1: exit 0" $?
zstdcat "$dir/v1.log" > "$dir/v1.plain"
grep -q '^cgroup_version=1$' "$dir/v1.plain"; check "v1: HOST cgroup_version 1" $?
grep -q '^cpu_quota_millicores=1500$' "$dir/v1.plain"; check "v1: HOST quota from cpu.cfs_quota_us / cpu.cfs_period_us" $?
grep -q '^cgroup=/php-fpm$' "$dir/v1.plain"; check "v1: HOST cgroup is the cpu controller's path" $?
grep -q '^cpus=0-1$' "$dir/v1.plain"; check "v1: HOST cpus" $?
[ "$(grep -c '^#fpmlog1 CGROUP [0-9]* [0-9]* cpu.stat ' "$dir/v1.plain")" = 2 ]; check "v1: CGROUP cpu.stat each round" $?
[ "$(grep -c '^#fpmlog1 CGROUP [0-9]* [0-9]* cpuacct.usage ' "$dir/v1.plain")" = 2 ]
check "v1: CGROUP cpuacct.usage each round, from the cpuacct mount" $?
grep -q '^81234567890$' "$dir/v1.plain"; check "v1: cpuacct.usage verbatim" $?
grep -q '^throttled_time 912345678$' "$dir/v1.plain"; check "v1: cpu.stat verbatim" $?
grep -Eq '^#fpmlog1 CGROUP [0-9]* [0-9]* (cpu\.(max|pressure)|memory\.(max|events)) ' "$dir/v1.plain"; [ $? -ne 0 ]
check "v1: no v2 files" $?
grep -q '^mem_limit_bytes=1073741824$' "$dir/v1.plain"; check "v1: HOST mem_limit_bytes from memory.limit_in_bytes" $?
for f in memory.limit_in_bytes memory.stat; do
    [ "$(grep -c "^#fpmlog1 CGROUP [0-9]* [0-9]* $f " "$dir/v1.plain")" = 2 ]; check "v1: CGROUP $f each round" $?
done
grep -q '^total_shmem 8388608$' "$dir/v1.plain"; check "v1: memory.stat verbatim" $?
bin/fpm-analyze --format json "$dir/v1.log" 2>/dev/null |
    grep -q '"host_millicores": 1500, "cpus": 2, "cpu_source": "quota-v1", "sched_group": {"autogroup": "/autogroup-54 nice 0", "cpu_weight": 512, "cpu_weight_kind": "shares", "cpu_controller": true}, "rounds": 2'
check "v1: analyzer: the v1 quota is the host; its cpu.shares (16.4)" $?
bin/fpm-record --proc-root "$dir/v1/proc" --sys-root "$dir/v1/sys" -n \
    --pool www=unix:$dir/www.sock 2>&1 | grep -q "^cgroup v1 quota 1.5 cores$"
check "v1: -n says the v1 quota" $?

# logrotate with create + HUP: the log is renamed, SIGHUP reopens a new one;
# SIGTERM finishes the round, ends the frame and exits 0
bin/fpm-record --proc-root fixtures/world/proc --sys-root fixtures/world/sys \
    --pool www=unix:$dir/www.sock --interval 1s -q -o "$dir/rot.log" 2>"$dir/rot.err" &
rec=$!
sleep 2.5
mv "$dir/rot.log" "$dir/rot.log.1"
kill -HUP $rec
sleep 2.2
kill -TERM $rec
wait $rec; check "SIGTERM: exit 0" $?
[ "$(grep -c 'could not read its status page' "$dir/rot.err")" = 1 ]
check "-q: only the problem on stderr, once across the reopen" $?
zstd -t -q "$dir/rot.log.1" "$dir/rot.log"; check "both files' frames are closed" $?
[ "$(stat -c %a "$dir/rot.log")" = 600 ]; check "the new log is mode 0600" $?
zstdcat "$dir/rot.log.1" > "$dir/rot1"; zstdcat "$dir/rot.log" > "$dir/rot2"
grep -q '^SIGHUP: reopening the log$' "$dir/rot1"; check "the old file says it was closed on SIGHUP" $?
head -1 "$dir/rot2" | grep -q '^#fpmlog1 HOST '; check "the new file starts with HOST" $?
grep -q '^#fpmlog1 POOL [0-9]* [0-9]* www ' "$dir/rot2"; check "and its POOL records" $?
grep -q '^stop: SIGTERM$' "$dir/rot2"; check "SIGTERM is noted" $?
seqs=$(cat "$dir/rot1" "$dir/rot2" | grep -a '^seq=' | cut -d= -f2 | tr '\n' ' ')
n=$(echo $seqs | wc -w)
[ "$seqs" = "$(seq -s ' ' 1 "$n") " ]; check "rounds go on across the files ($seqs)" $?
bin/fpm-analyze --format json "$dir/rot.log.1" "$dir/rot.log" > "$dir/rot.json" 2>"$dir/rot.aerr"
grep -q "\"rounds\": $n," "$dir/rot.json"; check "the analyzer reads both as one history" $?
grep -q "round pairs gave no host figures (host CPU, overhead, starved rounds): [0-9]* under 5 s apart$" "$dir/rot.aerr"
check "the pairs of a 1 s recording are said to give no host figures" $?
[ "$(grep -vc 'round pairs gave no host figures' "$dir/rot.aerr")" = 0 ]; check "and nothing else is said" $?
bin/fpm-analyze --format json "$dir/rot.log" "$dir/rot.log.1" > /dev/null 2>"$dir/rev.aerr"
grep -q "rot.log.1: its rounds of .* go back in time after .*rot.log: logs given out of order?" "$dir/rev.aerr"
check "newest first (a shell glob's order) is said" $?

# two php-fpm masters (two PHP versions) each with a pool "www": the other
# --frame-size: the frame ends after the round that brings it to SIZE (the
# default 4M holds the first log's 2 rounds in one frame)
[ "$(zstd -lv "$dir/log" 2>/dev/null | sed -n 's/^# Zstandard Frames: //p')" = 1 ]
check "default frame size: 2 rounds in one frame" $?
bin/fpm-record --proc-root fixtures/world/proc --sys-root fixtures/world/sys -q \
    --pool www=unix:$dir/www.sock --interval 1s --rounds 3 --frame-size 1k -o "$dir/small.log" 2>/dev/null
[ "$(zstd -lv "$dir/small.log" 2>/dev/null | sed -n 's/^# Zstandard Frames: //p')" = 4 ]
check "--frame-size 1k: a frame per round, and one for the stop" $?
bin/fpm-analyze --format json "$dir/small.log" 2>/dev/null | grep -q '"rounds": 3'
check "the analyzer reads the rounds across the frames" $?
bin/fpm-analyze --threads 1 --format json "$dir/small.log" > "$dir/small.1" 2>&1
bin/fpm-analyze --threads 5 --format json "$dir/small.log" > "$dir/small.5" 2>&1
cmp -s "$dir/small.1" "$dir/small.5"
check "and reads them alike with the frames decoded ahead (--threads 5)" $?

# master's worker 301 is never written under this pool; without a status
# page to tell them apart, no PIDS is written and that is said
cp -r fixtures/world "$dir/world2"
mkdir "$dir/world2/proc/300" "$dir/world2/proc/301"
printf 'php-fpm: master process (/etc/php/7.4/fpm/php-fpm.conf)\0\0' > "$dir/world2/proc/300/cmdline"
echo '300 (php-fpm7.4) S 1 300 300 0 -1 4194624 900 0 0 0 50 20 0 0 20 0 1 0 11692 206438400 1675' > "$dir/world2/proc/300/stat"
printf 'php-fpm: pool www\0' > "$dir/world2/proc/301/cmdline"
echo '301 (php-fpm7.4) S 300 300 300 0 -1 4194624 96 0 0 0 9999 999 0 0 20 0 1 0 11694 207532032 2711' > "$dir/world2/proc/301/stat"
bin/fpm-record --proc-root "$dir/world2/proc" --sys-root "$dir/world2/sys" -q \
    --pool www=unix:$dir/www.sock --pool api=unix:$dir/api.sock --interval 1s --rounds 2 \
    -o "$dir/two.log" 2>"$dir/two.err"
check "two masters: exit 0" $?
zstdcat "$dir/two.log" > "$dir/two"
grep -q '^301 ' "$dir/two"; [ $? -ne 0 ]; check "the other master's worker is never in a PIDS" $?
[ "$(grep -c '^#fpmlog1 PIDS [0-9]* [0-9]* www ' "$dir/two")" = 0 ]; check "no PIDS for the pool that cannot be told apart" $?
[ "$(grep -c '^#fpmlog1 PIDS [0-9]* [0-9]* api ' "$dir/two")" = 2 ]; check "the unambiguous pool keeps its PIDS" $?
[ "$(grep -c 'several php-fpm masters have a pool "www"' "$dir/two.err")" = 1 ]; check "said once on stderr" $?
[ "$(grep -c '^pool www: several php-fpm masters have a pool "www"' "$dir/two")" = 1 ]; check "and in a NOTE" $?

summary "record world"
