#!/bin/sh
# make bench: the figures issue "speed" asks for, side by side, in one run.
#   replay   fpm-analyze --format json of a generated week-long log (20 pools
#            x 40 workers at 30 s, zstd frames of 4 MiB) against zstd -dc of the
#            same file: the ratios of CPU time (goal <= 1.5x) and of wall time
#            (goal <= 1.2x), best of BEST runs each
#   decode   the reader alone, and with 2 threads decoding frames ahead,
#            reading every record of that log, against zstd -dc
#   floors   the replay's CPU beside its floors (bin/readlog, serial): the
#            records read, and their status pages and PIDS lines parsed as
#            fpm-analyze parses them, nothing applied
#   memory   peak RSS replaying 1 day and 7 days (flat: it must not grow), and
#            with --threads 6, past which no more threads are used
#   window   a 30-minute window of a 30-day log of that host (frames with
#            summaries: only those the window needs are read), found by the
#            log's index (goal <= 0.1 s) and, in the same log without its
#            index, by walking its frames; cut of it, beside zstd -dc of the
#            whole file and its full replay
#   joint    a week of a 200-pool host (30 s) replayed, and replayed by a
#            build without the joint fit's work per pair (section 11): the
#            ratio, and the peak RSS at 200 pools
#   record   fpm-record's CPU per 100 workers per round against a real
#            php-fpm 8.2 with 255 workers (static pools of 200, 50 and 5),
#            with and without 2,000 idle processes beside it, and with
#            2,000 unrelated listening unix sockets (the LISTEN lookup);
#            beside it, on the same workers in the same minute, its floor
#            (bin/floor: one pread each of every worker's kept-open stat,
#            statm and schedstat and a second of its statm, the read before
#            the status page, nothing else) and the ratio (goal <= 1.2x);
#            and against its true floor (the same reads, one status request
#            a pool and the round compressed at its level), also with 3
#            pools of 40 workers each;
#            beside it the recorder of BASE_REV (default 2368d2b, before
#            STATM and MEMINFO), built from git, on the same php-fpm
#   size     the log's bytes against gzip -6 of the same records
#   access   an ACCESS record of 1,000 lines against its floor (one pread of
#            those bytes, compressed at the recorder's level); the recorder's
#            round at 50 requests a second per pool with and without access logs
#   census   fpm-analyze of a censused log (20 pools x 40 workers at 30 s, 50
#            requests a second per pool in their access logs, docs/rules.md
#            section 20) of CENSUS_HOURS hours (default 3: a week at that
#            rate is 605 million lines, some 50 GB of them) against zstd -dc
#            of the same file: the ratio of CPU time (goal <= 1.5x), serial
#            and threaded; peak RSS of 1 hour and of CENSUS_HOURS (flat); and
#            its floors (bin/readlog): the records read, each line found, each
#            byte through a table, each line matched
#   fleet    contrib/fleet/fpm-fleet on HOSTS host-weeks (3 pools x 10 workers
#            at 5 s on 4 cores each) into a real PostgreSQL: host-weeks per
#            core-hour
# Not a test: nothing here fails on a slow or busy machine.  Logs are kept in
# $BENCH_DIR (default /tmp/fpmcpu-bench) for the next run.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=${BENCH_DIR:-/tmp/fpmcpu-bench}
BEST=${BEST:-3}
DAYS=${DAYS:-7}
mkdir -p "$dir"
cores=$(nproc)

# one run of a command: its wall time (s) and peak RSS (KiB)
run() {
    /usr/bin/time -f '%e %M' "$@" 2>&1 >/dev/null | tail -1
}
# one run of a command: its CPU time, user + system (s)
cpu() {
    /usr/bin/time -f '%U %S' "$@" 2>&1 >/dev/null | tail -1 | awk '{ print $1 + $2 }'
}
# the lesser of two numbers, the second when $1 is empty
least() {
    if [ -z "$1" ] || awk "BEGIN { exit !($2 < $1) }"; then echo "$2"; else echo "$1"; fi
}
# the better (faster) of two "time rss" pairs, the first when $1 is empty
better() {
    if [ -z "$1" ] || awk "BEGIN { exit !(${2% *} < ${1% *}) }"; then echo "$2"; else echo "$1"; fi
}

# (REPLAY=0 leaves the replay's part out, WINDOW=0 the window's)
if [ "${REPLAY:-1}" = 1 ]; then
for d in 1 "$DAYS"; do
    log=$dir/week-$d-f4m.fpmlog.zst
    [ -s "$log" ] || { echo "writing a $d-day log to $log (once)..."; "$top/bin/genlog" $((24 * d)) 20 40 30 16 > "$log"; }
done
log1=$dir/week-1-f4m.fpmlog.zst log7=$dir/week-$DAYS-f4m.fpmlog.zst
size7=$(stat -c %s "$log7")
# best of BEST, the commands taking turns: a shared host's slow spell then
# falls on each of them, not on whichever ran during it
z="" a="" s="" m1="" r0="" r2="" a6="" zc="" ac="" sc="" c0="" cp=""
for i in $(seq "$BEST"); do
    z=$(better "$z" "$(run sh -c "zstd -dc '$log7' > /dev/null")")
    a=$(better "$a" "$(run "$top/bin/fpm-analyze" --format json "$log7")")
    zc=$(least "$zc" "$(cpu zstd -qdc "$log7" -o /dev/null)")
    ac=$(least "$ac" "$(cpu "$top/bin/fpm-analyze" --format json "$log7")")
    sc=$(least "$sc" "$(cpu "$top/bin/fpm-analyze" --threads 1 --format json "$log7")")
    c0=$(least "$c0" "$(cpu "$top/bin/readlog" "$log7" 0)")
    cp=$(least "$cp" "$(cpu "$top/bin/readlog" "$log7" 0 pages)")
    s=$(better "$s" "$(run "$top/bin/fpm-analyze" --threads 1 --format json "$log7")")
    m1=$(better "$m1" "$(run "$top/bin/fpm-analyze" --format json "$log1")")
    r0=$(better "$r0" "$(run "$top/bin/readlog" "$log7" 0)")
    r2=$(better "$r2" "$(run "$top/bin/readlog" "$log7" 2)")
    a6=$(better "$a6" "$(run "$top/bin/fpm-analyze" --threads 6 --format json "$log7")")
done
echo
echo "machine: $cores CPUs, $(awk '/model name/ {sub(/.*: /, ""); print; exit}' /proc/cpuinfo)"
printf 'replay, %d-day log (%s MB zstd):   zstd -dc %.2f s, fpm-analyze %.2f s (%d threads): %.2fx; serial %.2f s: %.2fx\n' \
    "$DAYS" "$(awk "BEGIN { printf \"%.0f\", $size7 / 1e6 }")" "${z% *}" "${a% *}" "$cores" \
    "$(awk "BEGIN { print ${a% *} / ${z% *} }")" "${s% *}" "$(awk "BEGIN { print ${s% *} / ${z% *} }")"
printf 'replay CPU time (user + system):     zstd -dc %.2f s, fpm-analyze %.2f s: %.2fx (goal 1.5x)\n' \
    "$zc" "$ac" "$(awk "BEGIN { print $ac / $zc }")"
printf 'replay CPU, serial, and its floors: fpm-analyze %.2f s (%.2fx); the records read %.2f s (%.2fx), their status pages and PIDS lines parsed %.2f s (%.2fx)\n' \
    "$sc" "$(awk "BEGIN { print $sc / $zc }")" "$c0" "$(awk "BEGIN { print $c0 / $zc }")" \
    "$cp" "$(awk "BEGIN { print $cp / $zc }")"
printf 'decode, every record of that log:   reader alone %.2f s: %.2fx; 2 decoders ahead %.2f s: %.2fx of zstd -dc\n' \
    "${r0% *}" "$(awk "BEGIN { print ${r0% *} / ${z% *} }")" \
    "${r2% *}" "$(awk "BEGIN { print ${r2% *} / ${z% *} }")"
printf 'replay on 6 threads:               %.2f s: %.2fx\n' "${a6% *}" "$(awk "BEGIN { print ${a6% *} / ${z% *} }")"
printf 'peak RSS:                          1 day %.1f MiB, %d days %.1f MiB (%d threads); serial %.1f MiB; 6 threads %.1f MiB\n' \
    "$(awk "BEGIN { print ${m1#* } / 1024 }")" "$DAYS" "$(awk "BEGIN { print ${a#* } / 1024 }")" \
    "$cores" "$(awk "BEGIN { print ${s#* } / 1024 }")" "$(awk "BEGIN { print ${a6#* } / 1024 }")"

fi

if [ "${CENSUS:-1}" = 1 ]; then
CH=${CENSUS_HOURS:-3}
for h in 1 "$CH"; do
    log=$dir/census-$h.fpmlog.zst
    [ -s "$log" ] || { echo "writing a $h-hour censused log to $log (once)..."; \
        GENLOG_ACCESS=50 "$top/bin/genlog" "$h" 20 40 30 16 > "$log"; }
done
logc=$dir/census-$CH.fpmlog.zst
zc="" ac="" sc="" m1="" mh="" f0="" fl="" fb="" fm=""
for i in $(seq "$BEST"); do
    zc=$(least "$zc" "$(cpu zstd -qdc "$logc" -o /dev/null)")
    f0=$(least "$f0" "$(cpu "$top/bin/readlog" "$logc" 0)")
    fl=$(least "$fl" "$(cpu "$top/bin/readlog" "$logc" 0 lines)")
    fb=$(least "$fb" "$(cpu "$top/bin/readlog" "$logc" 0 bytes)")
    fm=$(least "$fm" "$(cpu "$top/bin/readlog" "$logc" 0 match)")
    ac=$(least "$ac" "$(cpu "$top/bin/fpm-analyze" --format json "$logc")")
    sc=$(least "$sc" "$(cpu "$top/bin/fpm-analyze" --threads 1 --format json "$logc")")
    m1=$(better "$m1" "$(run "$top/bin/fpm-analyze" --format json "$dir/census-1.fpmlog.zst")")
    mh=$(better "$mh" "$(run "$top/bin/fpm-analyze" --format json "$logc")")
done
printf 'census, %d hours at 50 requests a second a pool (%s MB zstd): CPU zstd -dc %.2f s, fpm-analyze %.2f s: %.2fx (goal 1.5x); serial %.2f s: %.2fx; peak RSS 1 hour %.1f MiB, %d hours %.1f MiB\n' \
    "$CH" "$(awk "BEGIN { printf \"%.0f\", $(stat -c %s "$logc") / 1e6 }")" "$zc" "$ac" \
    "$(awk "BEGIN { print $ac / $zc }")" "$sc" "$(awk "BEGIN { print $sc / $zc }")" \
    "$(awk "BEGIN { print ${m1#* } / 1024 }")" "$CH" "$(awk "BEGIN { print ${mh#* } / 1024 }")"
# the floors under it, each a step more of what a census must do (readlog)
printf 'census floors, CPU: the records read %.2f s (%.2fx), each line found %.2f s (%.2fx), each byte through a table %.2f s (%.2fx), each line matched %.2f s (%.2fx)\n' \
    "$f0" "$(awk "BEGIN { print $f0 / $zc }")" "$fl" "$(awk "BEGIN { print $fl / $zc }")" \
    "$fb" "$(awk "BEGIN { print $fb / $zc }")" "$fm" "$(awk "BEGIN { print $fm / $zc }")"
fi

if [ "${WINDOW:-1}" = 1 ]; then
# windows that seek (issue "post-incident replay"): a 30-day log of the same
# host, a 30-minute window in its middle and cut of it, against zstd -dc of
# the whole file, and the full replay
MONTH=${MONTH:-30}
logm=$dir/month-$MONTH-f4m-idx.fpmlog.zst # with its index (an older cache had none)
[ -s "$logm" ] || { echo "writing a $MONTH-day log to $logm (once, a few minutes)..."; \
    "$top/bin/genlog" $((24 * MONTH)) 20 40 30 16 > "$logm.part" && mv "$logm.part" "$logm"; }
# the same log without its index (the footer says where it begins)
logb=$dir/month-$MONTH-f4m-noidx.fpmlog.zst
if [ ! -s "$logb" ]; then
    t=$(tail -c 48 "$logm" | sed -n 's/^fpmidx1 crc=[0-9a-f]* total=0*\([0-9]*\)$/\1/p')
    head -c $(( $(stat -c %s "$logm") - t )) "$logm" > "$logb"
fi
sizem=$(stat -c %s "$logm")
w0=$(( $(zstd -dc "$logm" 2>/dev/null | head -c 1000000 | awk '/^#fpmlog1 ROUND/ {print int($4 / 1e9); exit}') + MONTH * 86400 / 2 ))
win="--from @$w0 --until @$((w0 + 1800))"
zm="" wm="" cm="" fm="" wb=""
for i in $(seq "$BEST"); do
    zm=$(better "$zm" "$(run sh -c "zstd -dc '$logm' > /dev/null")")
    wm=$(better "$wm" "$(run "$top/bin/fpm-analyze" --format json $win "$logm")")
    wb=$(better "$wb" "$(run "$top/bin/fpm-analyze" --format json $win "$logb")")
    rm -f "$dir/month-window.fpmlog.zst"
    cm=$(better "$cm" "$(run "$top/bin/fpm-analyze" cut -q $win -o "$dir/month-window.fpmlog.zst" "$logm")")
    [ "$i" = 1 ] && fm=$(run "$top/bin/fpm-analyze" --format json "$logm") # once: the longest
done
reads=$(FPM_ANALYZE_SEEK_STATS=1 "$top/bin/fpm-analyze" --format json $win "$logm" 2>&1 >/dev/null |
        sed -n 's/.*seek: \([0-9]*\) of \([0-9]*\) frames read (\([0-9]*\) of.*/\1 of \2 frames, \3 bytes/p')
printf 'window, 30 min of a %d-day log (%s MB zstd): %.2f s (%s read), peak RSS %.1f MiB; cut of it %.2f s (%s KB); zstd -dc of the file %.2f s; full replay %.2f s: %.2fx\n' \
    "$MONTH" "$(awk "BEGIN { printf \"%.0f\", $sizem / 1e6 }")" "${wm% *}" "$reads" \
    "$(awk "BEGIN { print ${wm#* } / 1024 }")" "${cm% *}" \
    "$(awk "BEGIN { printf \"%.0f\", $(stat -c %s "$dir/month-window.fpmlog.zst") / 1e3 }")" \
    "${zm% *}" "${fm% *}" "$(awk "BEGIN { print ${fm% *} / ${zm% *} }")"
printf 'window, the same log without its index: %.2f s (its frames walked); with it %.2f s (goal 0.1 s)\n' \
    "${wb% *}" "${wm% *}"

fi

# the joint fit's cost: a week of a 200-pool host (4 workers each at 30 s),
# with and without its work per pair, and the peak RSS at 200 pools
# (JOINT=0 leaves it out, FLEET=0 the fleet's, BASE_REV= the old recorder's)
if [ "${JOINT:-1}" = 1 ]; then
log200=$dir/week-200pools.fpmlog.zst
[ -s "$log200" ] || { echo "writing a 200-pool week to $log200 (once)..."; "$top/bin/genlog" 168 200 4 30 16 > "$log200"; }
j="" nj=""
for i in $(seq "$BEST"); do
    j=$(better "$j" "$(run "$top/bin/fpm-analyze" --format json "$log200")")
    nj=$(better "$nj" "$(run "$top/bin/fpm-analyze-nojoint" --format json "$log200")")
done
printf 'joint fit, 200 pools, 7 days:      %.2f s, without its work %.2f s: %.2fx; peak RSS %.1f MiB (without %.1f MiB)\n' \
    "${j% *}" "${nj% *}" "$(awk "BEGIN { print ${j% *} / ${nj% *} }")" \
    "$(awk "BEGIN { print ${j#* } / 1024 }")" "$(awk "BEGIN { print ${nj#* } / 1024 }")"
fi

# the recorder against a real php-fpm with 255 workers
if [ "${RECORD:-1}" = 1 ] && command -v php-fpm8.2 >/dev/null 2>&1; then
    . "$top/tests/integration/fpm.sh"
    f=$(mktemp -d /tmp/fpmcpu-benchfpm.XXXXXX)
    sleepers=""
    trap 'fpm_stop "$f"; [ -n "$sleepers" ] && kill $sleepers 2>/dev/null; rm -rf "$f"' EXIT INT TERM
    for p in a:200 b:50 c:5; do
        printf '[%s]\nlisten = %s/%s.sock\npm = static\npm.max_children = %s\npm.status_path = /status\npm.status_listen = %s/%s-status.sock\n' \
            "${p%:*}" "$f" "${p%:*}" "${p#*:}" "$f" "${p%:*}" > "$f/${p%:*}.conf"
    done
    fpm_start "$f" "$f/a.conf" "$f/b.conf" "$f/c.conf" || { echo "php-fpm did not start" >&2; exit 1; }
    sleep 2
    record() { # NAME: CPU us per round from the ROUND records (rounds 3 to 21 at
               # 1 s: the start's clock check and first scan aside), the least of BEST runs
        b=""
        for i in $(seq "$BEST"); do
            rm -f "$f/$1.fpmlog"
            "${rec_bin:-$top/bin/fpm-record}" -q --fpm-config "$f/fpm.conf" --interval 1s --rounds 21 \
                -o "$f/$1.fpmlog" 2>/dev/null
            c=$(zstdcat "$f/$1.fpmlog" | awk '/^self_cpu_us=/ { sub(/self_cpu_us=/, ""); v[++n] = $0 }
                END { printf "%.0f", (v[n] - v[2]) / (n - 2) }')
            if [ -z "$b" ] || [ "$c" -lt "$b" ]; then b=$c; fi
        done
        /usr/bin/time -f '%M' "$top/bin/fpm-record" -q --fpm-config "$f/fpm.conf" --interval 1s --rounds 2 \
            -o "$f/$1-rss.fpmlog" 2>"$f/$1.rss" >/dev/null
        echo "$b"
    }
    # the floor on the same workers, right after the recorder's runs: the
    # reads of every worker's files alone, and the true floor, what any
    # recorder of this job must also do: one status request a pool (its
    # pm.status_listen, as the recorder asks) and the round's bytes
    # compressed at the recorder's level
    floor() { "$top/bin/floor" 20 "$(cat "$f/fpm.pid")" | cut -d' ' -f1; }
    true_floor() {
        "$top/bin/floor" 20 --level 3 $(for p in a b c; do printf -- '--status %s/%s-status.sock:/status ' "$f" "$p"; done) \
            "$(cat "$f/fpm.pid")" | cut -d' ' -f1
    }
    c0=$(record plain)
    f0=$(floor)
    t0=$(true_floor)
    base_rev=${BASE_REV-2368d2b}
    if [ -n "$base_rev" ] && git -C "$top" cat-file -e "$base_rev^{commit}" 2>/dev/null; then
        mkdir -p "$f/base" && git -C "$top" archive "$base_rev" | tar -x -C "$f/base" &&
            make -s -C "$f/base" bin/fpm-record >/dev/null 2>&1
        rec_bin=$f/base/bin/fpm-record
        cb=$(record base)
        rec_bin=$top/bin/fpm-record
        printf 'recorder of %s on the same php-fpm: %d us of CPU per round, %.2f ms per 100 workers (now %.2f ms)\n' \
            "$base_rev" "$cb" "$(awk "BEGIN { print $cb / 2.55 / 1000 }")" "$(awk "BEGIN { print $c0 / 2.55 / 1000 }")"
    fi
    for i in $(seq 2000); do sleep 600 & sleepers="$sleepers $!"; done
    c1=$(record busy)
    f1=$(floor)
    kill $sleepers 2>/dev/null; sleepers=""
    # 2,000 unrelated listening unix sockets: the LISTEN lookup's dump filters them
    python3 -c '
import os, socket, sys, time
d = sys.argv[1]
socks = []
for i in range(2000):
    s = socket.socket(socket.AF_UNIX)
    s.bind("%s/u%d.sock" % (d, i))
    s.listen(8)
    socks.append(s)
open(d + "/sockets-ready", "w").close()
while os.path.exists(d + "/sockets-ready"):
    time.sleep(0.2)
' "$f" &
    while [ ! -e "$f/sockets-ready" ]; do sleep 0.1; done
    c2=$(record sockets)
    rm -f "$f/sockets-ready"; wait
    printf 'recorder, 255 workers, 1 s:         %d us of CPU per round, %.2f ms per 100 workers; with 2,000 idle processes %d us, %.2f ms; with 2,000 unix sockets %d us, %.2f ms; peak RSS %.1f MiB\n' \
        "$c0" "$(awk "BEGIN { print $c0 / 2.55 / 1000 }")" "$c1" "$(awk "BEGIN { print $c1 / 2.55 / 1000 }")" \
        "$c2" "$(awk "BEGIN { print $c2 / 2.55 / 1000 }")" \
        "$(awk "BEGIN { print $(tail -1 "$f/plain.rss") / 1024 }")"
    printf 'recorder against its floor:         %d us of CPU per round, the floor %d us: %.2fx; with 2,000 idle processes %d us, the floor %d us: %.2fx\n' \
        "$c0" "$f0" "$(awk "BEGIN { print $c0 / $f0 }")" "$c1" "$f1" "$(awk "BEGIN { print $c1 / $f1 }")"
    printf 'recorder against its true floor:    %d us; the floor with a status request a pool and the round compressed %d us: %.2fx (goal 1.2x)\n' \
        "$c0" "$t0" "$(awk "BEGIN { print $c0 / $t0 }")"
    # 40 workers a pool: 3 such pools, the recorder against its true floor
    fpm_stop "$f"
    for p in a b c; do
        printf '[%s]\nlisten = %s/%s.sock\npm = static\npm.max_children = 40\npm.status_path = /status\npm.status_listen = %s/%s-status.sock\n' \
            "$p" "$f" "$p" "$f" "$p" > "$f/$p.conf"
    done
    fpm_start "$f" "$f/a.conf" "$f/b.conf" "$f/c.conf" || { echo "php-fpm did not start" >&2; exit 1; }
    sleep 2
    c40=$(record forty)
    t40=$(true_floor)
    printf 'recorder, 3 pools x 40 workers:     %d us of CPU per round; its true floor %d us: %.2fx (goal 1.2x)\n' \
        "$c40" "$t40" "$(awk "BEGIN { print $c40 / $t40 }")"
    zstdcat "$f/plain.fpmlog" > "$f/plain.txt"
    gz=$(gzip -6 -c "$f/plain.txt" | wc -c)
    printf 'log size:                           %d bytes for 21 rounds; gzip -6 of the same records %d bytes: %.2fx\n' \
        "$(stat -c %s "$f/plain.fpmlog")" "$gz" "$(awk "BEGIN { print $(stat -c %s "$f/plain.fpmlog") / $gz }")"
fi

# the access logs (fpmlog(5) ACCESS): an ACCESS record of 1,000 lines
# against its floor (one pread of those bytes, compressed at the recorder's
# level), and the recorder's round on a real php-fpm of 3 pools of 10
# workers each at 50 requests a second, with their access logs and without
# (ACCESS=0 leaves it out)
if [ "${ACCESS:-1}" = 1 ] && command -v php-fpm8.2 >/dev/null 2>&1; then
    set -- $("$top/bin/accessbench" "$dir" 200)
    printf 'ACCESS, 1,000 lines (%d bytes):     %.1f us of CPU to read, record and compress them; the floor (one pread, zstd) %.1f us: %.2fx\n' \
        "$4" "$1" "$2" "$3"
    . "$top/tests/integration/fpm.sh"
    a=$(mktemp -d /tmp/fpmcpu-benchacc.XXXXXX)
    chmod 755 "$a"
    printf '<?php usleep(5000); echo "ok";\n' > "$a/a.php"
    chmod 644 "$a/a.php"
    for p in p1 p2 p3; do
        printf '[%s]\nlisten = %s/%s.sock\npm = static\npm.max_children = 10\npm.status_path = /status\naccess.log = %s/$pool.access.log\naccess.format = "%%t %%p %%m %%{REQUEST_URI}e %%s %%{mili}d %%{kilo}M %%C%%%%"\n' \
            "$p" "$a" "$p" "$a" > "$a/$p.conf"
    done
    fpm_start "$a" "$a/p1.conf" "$a/p2.conf" "$a/p3.conf" || { echo "php-fpm did not start" >&2; exit 1; }
    grep -v '^access\.' "$a/fpm.conf" > "$a/noaccess.conf" # the same pools, no access logs
    python3 - "$top/tests/integration" "$a" <<'PY' &
import os, sys, threading, time
sys.path.insert(0, sys.argv[1])
from fcgi_load import request
d = sys.argv[2]
def pace(p):  # 50 requests a second
    t = time.monotonic()
    while not os.path.exists(d + "/stop"):
        request(d + "/%s.sock" % p, d + "/a.php", "x=1", uri="/product/42?ref=home")
        t += 0.02
        time.sleep(max(0.0, t - time.monotonic()))
ts = [threading.Thread(target=pace, args=(p,)) for p in ("p1", "p2", "p3")]
for t in ts: t.start()
for t in ts: t.join()
PY
    sleep 2
    acc_round() { # CONF: the least of BEST runs' CPU us per round (rounds 3 to 21 at 1 s)
        b=""
        for i in $(seq "$BEST"); do
            rm -f "$a/r.fpmlog" "$a/r.fpmlog.access"
            "$top/bin/fpm-record" -q --fpm-config "$1" --interval 1s --rounds 21 -o "$a/r.fpmlog" 2>/dev/null
            c=$(zstdcat "$a/r.fpmlog" | awk '/^self_cpu_us=/ { sub(/self_cpu_us=/, ""); v[++n] = $0 }
                END { printf "%.0f", (v[n] - v[2]) / (n - 2) }')
            if [ -z "$b" ] || [ "$c" -lt "$b" ]; then b=$c; fi
        done
        echo "$b"
    }
    with=$(acc_round "$a/fpm.conf")
    lines=$(zstdcat "$a/r.fpmlog" | grep -a -c ' /product/42?ref=home ')
    without=$(acc_round "$a/noaccess.conf")
    touch "$a/stop"
    wait
    fpm_stop "$a"
    rm -rf "$a"
    printf 'round, 3 pools x 10 workers at 50 req/s each: %d us of CPU with their access logs (%d lines in 21 rounds), %d us without: +%d us, %.2fx\n' \
        "$with" "$lines" "$without" "$((with - without))" "$(awk "BEGIN { print $with / $without }")"
fi

# the fleet path: HOSTS hosts of a week each, analyzed and loaded
[ "${FLEET:-1}" = 1 ] || exit 0
HOSTS=${HOSTS:-8}
week=$dir/host-week-5min.fpmlog.zst # 5-minute frames (an older cache had hour-long ones)
[ -s "$week" ] || { echo "writing a host-week log to $week (once)..."; "$top/bin/genlog" 168 3 10 5 4 > "$week"; }
# what frames of 5 minutes of rounds cost against the hour-long ones before
# (a flipped byte costs at most the rest of its frame)
hourly=$(GENLOG_HOURLY=1 "$top/bin/genlog" 168 3 10 5 4 | wc -c)
printf 'host-week log (3 pools every 5 s):  %d bytes in 5-minute frames, %d in hour-long ones: +%.2f%%\n' \
    "$(stat -c %s "$week")" "$hourly" "$(awk "BEGIN { print 100 * ($(stat -c %s "$week") - $hourly) / $hourly }")"
. "$top/tests/integration/pg.sh"
fl=$(mktemp -d /tmp/fpmcpu-bench-fleet.XXXXXX)
if pg_start "$fl"; then
    for i in $(seq "$HOSTS"); do mkdir -p "$fl/logs/host$i"; cp "$week" "$fl/logs/host$i/"; done
    t=$(FPM_ANALYZE=$top/bin/fpm-analyze /usr/bin/time -f '%e %U %S' "$top/contrib/fleet/fpm-fleet" \
        -d "$PGCONN" "$fl/logs" 2>&1 >/dev/null | tail -1)
    wall=${t%% *} cpu=$(echo "$t" | awk '{print $2 + $3}')
    printf 'fleet, %d host-weeks (%s MB zstd each) into PostgreSQL: %.1f s on %d cores, %.1f s of CPU: %.0f host-weeks per core-hour (%.0f by CPU time)\n' \
        "$HOSTS" "$(awk "BEGIN { printf \"%.0f\", $(stat -c %s "$week") / 1e6 }")" "$wall" "$cores" "$cpu" \
        "$(awk "BEGIN { print $HOSTS * 3600 / ($wall * $cores) }")" "$(awk "BEGIN { print $HOSTS * 3600 / $cpu }")"
    pg_stop "$fl"
fi
rm -rf "$fl"
