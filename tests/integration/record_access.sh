#!/bin/sh
# fpmlog(5) ACCESS on a real php-fpm 8.2: a pool web with access.log and
# the census's access.format (docs/rules.md 20.7), and a pool plain with
# none, under load from the test's own client, which logs every request it
# completed (an id a request, in its URI).  fpm-record follows web's access
# log at 1 s through one rename + SIGUSR1 (logrotate's default), one
# copytruncate, one restart (SIGINT, then a new run on the same log) and
# one kill -9 (and a new run): every request php-fpm wrote to its access
# log after the recorder began is in an ACCESS record; only copytruncate's
# gap is missing, and said: what the file gained after the recorder's last
# read before the truncation (in logrotate's copy, or in no file when
# written between the copy and the truncation); a request is in
# two records only for the lines of the one round a kill -9 repeats, said
# by the resumed run; nothing is in a record that php-fpm did not write.
# The last run has --redact-query: its lines keep their path, lose their
# query.  Hostile URIs (a quote, markup, invalid UTF-8) are stored byte
# for byte.
# The pool without an access log records its pages as before, and the
# recorder's start says how to census it.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/integration/fpm.sh"
. "$top/tests/integration/check.sh"
dir=$(mktemp -d /tmp/fpmcpu-access.XXXXXX)
rec=""
cleanup() {
    touch "$dir/stop"
    [ -n "$rec" ] && kill "$rec" 2>/dev/null
    fpm_stop "$dir"
    wait
    [ -n "${KEEP:-}" ] || rm -rf "$dir"
}
trap cleanup EXIT INT TERM
chmod 755 "$dir"
printf '<?php usleep(30000); echo "ok";\n' > "$dir/a.php"
chmod 644 "$dir/a.php"
printf '[web]\nlisten = %s/web.sock\npm = static\npm.max_children = 4\npm.status_path = /status\naccess.log = %s/$pool.access.log\naccess.format = "%%t %%p %%m %%{REQUEST_URI}e %%s %%{mili}d %%{kilo}M %%C%%%%"\n' \
    "$dir" "$dir" > "$dir/web.conf"
printf '[plain]\nlisten = %s/plain.sock\npm = static\npm.max_children = 2\npm.status_path = /status\n' \
    "$dir" > "$dir/plain.conf"
fpm_start "$dir" "$dir/web.conf" "$dir/plain.conf" || { cat "$dir/fpm.log" >&2; exit 1; }
check "php-fpm starts with web's access log" $?
master=$(cat "$dir/fpm.pid")

# the client: 3 connections, each request with its id in the URI; each id
# completed appended to done (php-fpm has written its line by then)
cat > "$dir/client.py" <<'PY'
import os, sys, threading, time
sys.path.insert(0, sys.argv[1])
from fcgi_load import request
d = sys.argv[2]
lock, n = threading.Lock(), [0]
done = open(d + "/done", "a", buffering=1)
def loop(k):
    while not os.path.exists(d + "/stop"):
        with lock:
            n[0] += 1
            i = n[0]
        uri = "/shop/item/%d?id=%d&tok=s3cret" % (i, i)
        try:
            request(d + "/web.sock", d + "/a.php", "id=%d" % i, uri=uri)
        except OSError:
            continue
        with lock:
            done.write("%d\n" % i)
ts = [threading.Thread(target=loop, args=(k,)) for k in range(3)]
for t in ts:
    t.start()
for t in ts:
    t.join()
PY
python3 "$dir/client.py" "$top/tests/integration" "$dir" &
sleep 1

record() { # one run of the recorder at 1 s, in the background (options: more)
    "$top/bin/fpm-record" --fpm-config "$dir/fpm.conf" --interval 1s --rounds 1000 "$@" \
        -o "$dir/log" 2>>"$dir/rec.err" &
    rec=$!
}
record
sleep 3
# 1. logrotate's default: renamed, then php-fpm reopens its logs
mv "$dir/web.access.log" "$dir/web.access.log.1"
sleep 0.3
kill -USR1 "$master"
sleep 3
# 2. copytruncate
cp "$dir/web.access.log" "$dir/web.access.log.2"
truncate -s 0 "$dir/web.access.log"
sleep 3
# 3. a restart
kill -INT "$rec"; wait "$rec"
check "fpm-record stops cleanly (SIGINT)" $?
record
sleep 3
# 4. a kill -9 and a new run, which cuts the URIs' queries
kill -KILL "$rec"; wait "$rec" 2>/dev/null
record --redact-query
sleep 2
# hostile URIs, each once: a quote, markup, invalid UTF-8, spaces
python3 - "$top/tests/integration" "$dir" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from fcgi_load import request
d = sys.argv[2]
for uri in (b'/q"uote/h1', b'/<script>alert(1)</script>/h2', b'/caf\xc3\xff/h3',
            b'/a b  c/h4'):
    request(d + "/web.sock", d + "/a.php", "hostile", uri=uri)
PY
sleep 2
touch "$dir/stop"
sleep 2
kill -INT "$rec"; wait "$rec"
check "the last fpm-record stops cleanly" $?
rec=""
wait

grep -q 'pool plain: no access.log: its figures will be a sample' "$dir/rec.err" &&
    grep -q 'access.format = "%t %p %m %{REQUEST_URI}e %s %{mili}d %{kilo}M %C%%"' "$dir/rec.err"
check "the recorder says how to count every request of plain" $?
zstd -dc "$dir/log" > "$dir/plain-log"
python3 - "$dir" <<'PY' > "$dir/checks"
import re, sys
d = sys.argv[1]
def say(ok, what):
    print(("ok " if ok else "FAIL ") + what)
data = open(d + "/plain-log", "rb").read()
recs, i = [], 0  # (type, source, payload), in the log's order
while i < len(data):
    e = data.index(b"\n", i)
    h = data[i:e].split(b" ")
    n = int(h[5])
    recs.append((h[1].decode(), h[4].decode(), data[e + 1:e + 1 + n]))
    i = e + 1 + n + 1
notes = [p.decode("utf-8", "replace") for t, s, p in recs if t == "NOTE"]
acc = [p for t, s, p in recs if t == "ACCESS"]
say(all(s == "web" for t, s, p in recs if t == "ACCESS"), "ACCESS records are web's alone")
say(sum(1 for t, s, p in recs if t == "STATUS" and s == "plain") >= 10,
    "plain's status pages are recorded as before")
lines = [l for p in acc for l in p.split(b"\n")[:-1]]
say(all(p.endswith(b"\n") or not p for p in acc), "every ACCESS record is whole lines")
def ids(ls):
    return [m.group(1).decode() for l in ls for m in [re.search(rb" /shop/item/(\d+)", l)] if m]
got = ids(lines)
# what php-fpm wrote and kept: the renamed file, the copy, the file now
files = [open(d + "/" + f, "rb").read().split(b"\n")[:-1]
         for f in ("web.access.log.1", "web.access.log.2", "web.access.log")]
kept = ids([l for f in files for l in f])
# the start: the first run began at the end of the file as it was
skip = int(re.search(r"started at its end, (\d+) bytes skipped", "\n".join(notes)).group(1))
before = set(ids(open(d + "/web.access.log.1", "rb").read()[:skip].split(b"\n")))
# copytruncate's gap as the recorder reads it: what the file gained after its
# last read (the byte the NOTE names, in logrotate's copy) ...
trunc = [n for n in notes if "truncated" in n and "copytruncate" in n]
say(len(trunc) == 1, "copytruncate is said once (%d)" % len(trunc))
read = int(re.search(r"(\d+) read: copytruncate", trunc[0]).group(1)) if trunc else 0
gap = set(ids(open(d + "/web.access.log.2", "rb").read()[read:].split(b"\n")))
# ... and, in no file, what was written between the copy and the truncation
done = [l.strip() for l in open(d + "/done") if l.strip()]
nofile = [x for x in done if x not in set(kept) and x not in before]
want = [x for x in kept if x not in before and x not in gap]
missing = [x for x in want if x not in set(got)]
say(not missing, "every request php-fpm wrote after the start but copytruncate's gap is in an "
    "ACCESS record (%d of %d; missing %s)" % (len(want) - len(missing), len(want), missing[:5]))
extra = [x for x in set(got) if x not in set(kept)]
say(not extra, "no ACCESS line php-fpm did not write (%s)" % extra[:5])
say(len(gap) + len(nofile) < len(want) / 4, "copytruncate's gap is the lines since the "
    "recorder's last read before it, a round's (%d after the last read, %d in no file, of %d)"
    % (len(gap), len(nofile), len(want)))
lost = sorted(gap | set(nofile))
# duplicates: the lines of the one round a kill -9 repeats, all of one record
dup = {x for x in set(got) if got.count(x) > 1}
recs_of = [set(ids(p.split(b"\n")[:-1])) for p in acc]
say(not dup or any(dup <= r for r in recs_of),
    "a request in two records only within the one round a kill -9 repeated (%d)" % len(dup))
resumed = sum(1 for n in notes if "resumed where the last run left it" in n)
say(resumed == 2, "the restart and the run after the kill -9 resume where the state says (%d)"
    % resumed)
say(any("renamed away and read to its end" in n for n in notes), "the rename is followed")
for want_uri in (b'/q"uote/h1', b'/<script>alert(1)</script>/h2', b'/caf\xc3\xff/h3',
                 b'/a b  c/h4'):
    say(sum(1 for l in lines if b" " + want_uri + b" 200 " in l) == 1,
        "a hostile URI stored byte for byte, once (%r)" % want_uri)
last = max(k for k, (t, s, p) in enumerate(recs) if t == "HOST")  # the --redact-query run
red = [l for t, s, p in recs[last:] if t == "ACCESS" for l in p.split(b"\n")[:-1]]
say(len(red) > 20 and not any(b"?" in l for l in red),
    "--redact-query: the last run's %d lines have no query" % len(red))
say(any(b"tok=" in l for l in lines[:len(lines) - len(red)]),
    "the runs before it kept the queries, as written")
print("note %d requests completed, %d lines recorded (%d distinct), %d in copytruncate's gap "
      "(%d of them in no file), %d repeated after the kill -9"
      % (len(done), len(got), len(set(got)), len(lost), len(nofile), len(dup)))
PY
check "the python step ran" $?
verdicts "$dir/checks" "record access"
summary record_access
