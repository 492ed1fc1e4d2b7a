#!/usr/bin/env python3
"""make test: a window that seeks prints what the window over the whole
input prints, byte for byte, and so does the window over its cut.

Every log of fixtures/logs, the analyzer's fuzz seed logs, and the hard cases
written here (a worker running through the stretch before the window, a pool
in ERROR before it, a recorder restart and a reboot just before it, several
hosts given together and cat'ed into one file, a clock stepped back, frames
without summaries) are re-encoded by `fpm-analyze cut --frame-size 1k`
(frames of a round or two, each with its summary).  For windows at several
edges (a round's own second, the second after it, the first and last rounds,
one side open):

  full  FPM_ANALYZE_FULL_READ=1 fpm-analyze W ORIGINAL...   (every frame read)
  seek  fpm-analyze W REENCODED...                           (frames jumped over)
  cut   fpm-analyze cut W -o OUT REENCODED...; fpm-analyze W OUT

must print the same JSON (and, for some windows, text).  The re-encoded logs
end with their index: the same logs without it, and with it damaged (then
the message names it), print the same JSON as with it.  A log of many
frames must have windows where frames were in fact jumped over
(FPM_ANALYZE_SEEK_STATS), or the test would compare full reads with
themselves.
usage: seek_equal.py BIN_DIR (SEEK_ONLY=NAME,... only those logs;
SEEK_FAIL_FAST=1 stops at the first failure: make mutate's)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "fixtures"))
import simulate  # noqa: E402
from simulate import NS, Pool, kv, record, simulate as sim  # noqa: E402

ANALYZE = None
fails = 0
passed = 0
lock = threading.Lock()  # the logs are checked on threads, each its own files


def say(ok, what):
    global fails, passed
    with lock:
        if ok:
            passed += 1
            return
        fails += 1
        print("FAIL: " + what, flush=True)
        if os.environ.get("SEEK_FAIL_FAST"):  # make mutate: the first is enough
            os._exit(1)


def run(args, env=None):
    e = dict(os.environ)
    e.pop("FPM_ANALYZE_FULL_READ", None)
    e.update(env or {})
    p = subprocess.run([ANALYZE] + args, capture_output=True, env=e)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def plain_of(path):
    data = open(path, "rb").read()
    if data[:4] == b"\x28\xb5\x2f\xfd" or (data[:1] and data[0] & 0xF0 == 0x50 and data[1:4] == b"\x2a\x4d\x18"):
        return subprocess.run(["zstd", "-dc", path], capture_output=True).stdout
    return data


def round_seconds(paths):
    secs = []
    for p in paths:
        secs += [int(m.group(1)) // NS for m in
                 re.finditer(rb"#fpmlog1 ROUND \d+ (\d+) ", plain_of(p))]
    return secs


def windows(secs, starts=()):
    """Windows at edges: [from, until) as argument lists; starts: rounds (in
    file order, from 1) that a window must begin at."""
    s = sorted(set(secs))
    if not s:
        return []
    first = [["--from", "@%d" % secs[k - 1], "--until", "@%d" % (secs[k - 1] + 600)]
             for k in starts if k <= len(secs)]
    n = len(s)
    picks = sorted(set([0, n // 4, n // 2, (3 * n) // 4, n - 1]))
    out = []
    for i in picks:
        for j in picks:
            if j > i:
                out.append(["--from", "@%d" % s[i], "--until", "@%d" % s[j]])
    if n > 2:
        mid = s[n // 2]
        out.append(["--from", "@%d" % (mid + 1), "--until", "@%d" % (s[-1] + 1)])
        out.append(["--from", "@%d" % s[n // 3]])
        out.append(["--until", "@%d" % s[(2 * n) // 3]])
        out.append(["--from", "@%d" % (s[-1] + 1)])  # no round in it: exit 2, same message
    return first + out[:9]


def reencode(d, name, paths):
    out = os.path.join(d, name + ".cut1k")
    rc, _, err = run(["cut", "-q", "--frame-size", "1k", "-o", out] + paths)
    say(rc == 0, "%s: cut --frame-size 1k re-encodes it (%s)" % (name, err.strip()))
    return out


STARTS = {}  # hard case: the rounds a window must begin at


def index_at(path):
    """Where the index that ends path begins (fpmlog(5), "The index"), or None."""
    data = open(path, "rb").read()
    m = re.search(rb"fpmidx1 crc=[0-9a-f]{8} total=(\d{20})\n\Z", data)
    return len(data) - int(m.group(1)) if m else None


def without_index(d, paths):
    """Copies of the logs without their indexes, and with each index damaged
    (a byte of its body changed): a window over either must print what it
    prints over the logs, and over the second name the damage."""
    bare, bad = [], []
    for i, p in enumerate(paths):
        data, at = open(p, "rb").read(), index_at(p)
        if at is None:
            bare.append(p)
            bad.append(p)
            continue
        b1, b2 = os.path.join(d, "%s.bare%d" % (os.path.basename(p), i)), \
            os.path.join(d, "%s.bad%d" % (os.path.basename(p), i))
        open(b1, "wb").write(data[:at])
        k = data.index(b"\nF ", at) + 3  # the first frame's offset
        open(b2, "wb").write(data[:k] + (b"9" if data[k:k + 1] != b"9" else b"8") + data[k + 1:])
        bare.append(b1)
        bad.append(b2)
    return bare, bad


def check(d, name, originals, reencoded, text_too=1):
    skipped_any = False
    ws = windows(round_seconds(originals), STARTS.get(name, ()))
    say(all(index_at(p) is not None for p in reencoded), "%s: every cut ends with its index" % name)
    # (an index is this file's when it begins where it says; the cut of a log
    # put after another one is not)
    indexed = [p for p in reencoded
               if index_at(p) is not None and
               b"\nend=%d\n" % index_at(p) in open(p, "rb").read()[index_at(p):]]
    bare, bad = without_index(d, reencoded)
    for k, w in enumerate(ws):
        fmts = ["json", "text"] if k < text_too else ["json"]
        full_json = None
        for fmt in fmts:
            a = run(["--format", fmt] + w + originals, {"FPM_ANALYZE_FULL_READ": "1"})
            b = run(["--format", fmt] + w + reencoded, {"FPM_ANALYZE_SEEK_STATS": "1"})
            m = re.search(r"seek: (\d+) of (\d+) frames read.*; (\d+) frames from indexes", b[2])
            if m and int(m.group(1)) < int(m.group(2)):
                skipped_any = True
            if m and fmt == "json" and k == 0:
                say(int(m.group(3)) > 0 or not indexed or int(m.group(2)) == 0,
                    "%s: the window found its frames in the index (%s)" % (name, m.group(0)))
            if fmt == "json":
                full_json = a
                c = run(["--format", fmt] + w + bare)
                say(c[0] == b[0] and c[1] == b[1],
                    "%s %s: the logs without their index print what they print with it"
                    % (name, " ".join(w)))
                c = run(["--format", fmt] + w + bad)
                say(c[0] == b[0] and c[1] == b[1] and "damaged index (bad CRC)" in c[2],
                    "%s %s: with a damaged index, the same, and the damage said (%s)"
                    % (name, " ".join(w), c[2].strip()[:200]))
            say(a[0] == b[0] and a[1] == b[1],
                "%s %s %s: seeking prints what the full read prints (rc %d/%d)" % (
                    name, fmt, " ".join(w), a[0], b[0]))
            if a[1] != b[1]:
                full, seek = os.path.join(d, name + ".full.out"), os.path.join(d, name + ".seek.out")
                open(full, "wb").write(a[1])
                open(seek, "wb").write(b[1])
                with lock:
                    subprocess.run(["diff", full, seek])
        if full_json[0] != 0:
            continue
        # the cut of the log as frames jumped over, and as read whole (7b)
        for how, src in (("", reencoded), (" (read whole)", originals)):
            out = os.path.join(d, "%s.w%d" % (name, k))
            rc, _, err = run(["cut", "-q"] + w + ["-o", out] + src)
            c = run(["--format", "json"] + w + [out])
            say(rc == 0 and c[1] == full_json[1],
                "%s %s: the window over its cut%s prints what the window over the log prints (%s)"
                % (name, " ".join(w), how, err.strip()))
            if os.path.exists(out):
                os.unlink(out)
    return skipped_any


def hard_cases(d):
    """The cases the issue names, as plain logs: {name: [paths]}."""
    cases = {}

    def pools(first):
        return [Pool("shop", 3, 6, 70.0, 8.0, lambda t, r: 0.5 + 0.3 * r.random(), ["\\/buy"], first),
                Pool("api", 2, 8, 15.0, 4.0, lambda t, r: 0.1 + 0.05 * r.random(), ["\\/v1"],
                     first + 100)]

    def put(name, *parts):
        paths = []
        for i, data in enumerate(parts):
            p = os.path.join(d, "%s.%d.fpmlog" % (name, i))
            open(p, "wb").write(data)
            paths.append(p)
        cases[name] = paths

    # a pool in ERROR for 20 rounds, then back: windows from its first round back
    put("error-before", sim("h1", 50, pools(4100), seed=41, truth=dict(error_rounds=range(15, 35))))
    STARTS["error-before"] = (35, 36)
    # a recorder restart (same boot) and a reboot just before the window
    put("restart", sim("h1", 25, pools(4100), seed=42) +
        sim("h1", 25, pools(4100), seed=43, real_start=1795_990_000 + 25 * 31 + 5))
    STARTS["restart"] = (26, 27)
    put("reboot", sim("h1", 25, pools(4100), seed=44) +
        sim("h1", 25, pools(4100), seed=45, real_start=1795_990_000 + 25 * 31 + 5,
            boot_id="0a8e4f61-77c2-4f0e-8d13-5b9a2c6e4d21"))
    STARTS["reboot"] = (26, 27)
    # the clock stepped back: the second run's rounds are earlier than the first's
    put("clock-back", sim("h1", 25, pools(4100), seed=46) +
        sim("h1", 25, pools(4100), seed=47, real_start=1795_990_000 - 600))
    STARTS["clock-back"] = (10, 26, 30)
    # two hosts, as two files and as one
    a = sim("web1", 30, pools(4100), seed=48)
    b = sim("web2", 30, pools(5100), seed=49, real_start=1795_990_300)
    put("two-hosts", a, b)
    put("two-hosts-cat", a + b)
    # a worker running through the whole stretch before the window
    # a pool that only the first run's rounds name (no POOL record): listed
    # over the log, so over its cut too
    old = strip_pool_records(sim("h1", 20, pools(4100) + [
        Pool("old", 2, 4, 40.0, 5.0, lambda t, r: 0.3, ["\\/o"], 4300)], seed=50), "old")
    put("gone-pool", old + sim("h1", 30, pools(4100), seed=51, real_start=1795_990_000 + 20 * 31 + 5))
    STARTS["gone-pool"] = (30,)
    # a pool that only the second run's rounds name, after the window (7b:
    # the cut keeps what lists it); a window of the first run's rounds alone
    late = strip_pool_records(sim("h1", 20, pools(4100) + [
        Pool("late", 2, 4, 40.0, 5.0, lambda t, r: 0.3, ["\\/l"], 4300)], seed=53,
        real_start=1795_990_000 + 20 * 31 + 5), "late")
    put("late-pool", sim("h1", 20, pools(4100), seed=54) + late)
    STARTS["late-pool"] = (2, 5)
    # one recorder run in two files, split inside a round: the first file's
    # part of it is dropped, the second's stands alone
    run = sim("h1", 40, pools(4100), seed=52)
    cut = run.index(b"#fpmlog1 PIDS", len(run) // 2)
    put("split-in-a-round", run[:cut], run[cut:])
    put("error-gap", error_gap())
    STARTS["error-gap"] = (31, 32)
    put("long-request", long_request())
    STARTS["long-request"] = (41, 42)
    return cases


def strip_pool_records(data, name):
    """data without the POOL records of pool name."""
    out, pos = bytearray(), 0
    head = re.compile(rb"#fpmlog1 POOL \d+ \d+ (\S+) (\d+) [0-9a-f]{8}\n")
    for m in head.finditer(data):
        if m.group(1) == name.encode():
            out += data[pos:m.start()]
            pos = m.end() + int(m.group(2)) + 1
    return bytes(out + data[pos:])


def error_gap():
    """One pool of 2 idle workers, a request each per round, whose status
    page is an ERROR in rounds 11 to 30: the first page after the gap counts
    both workers' requests against what was remembered before it, which a
    read that starts inside the gap would take for primed."""
    mono, real = 1_000 * NS, 1795_990_000 * NS
    out = bytearray(record("HOST", mono, real, None, kv([
        ("format", 1), ("recorder", "test"), ("hostname", "h8"), ("boot_id", "b8"),
        ("nproc", 2), ("clk_tck", 100), ("interval_ms", 30000), ("cpu_quota_millicores", 0)])))
    out += record("POOL", mono, real, "p", kv([("max_children", 2)]))
    reqs = {8001: 1, 8002: 1}
    busy = 10_000
    for r in range(1, 51):
        mono += 30 * NS
        real += 30 * NS
        workers = []
        for pid in reqs:
            reqs[pid] += 1
            workers.append(dict(pid=pid, state="Idle", requests=reqs[pid], duration=400000,
                                method="GET", uri="/x", script="/x.php",
                                cpu="%d.00" % (30 + r % 40), memory=2097152))
        if 11 <= r <= 30:
            out += record("ERROR", mono + 1_000_000, real + 1_000_000, "p", "timeout\n")
        else:
            out += record("STATUS", mono + 1_000_000, real + 1_000_000, "p", simulate.status_page(
                "p", "static", 1795_980_000, real // NS, sum(reqs.values()), 0, workers))
        busy += 3000
        out += record("STAT", mono + 2_000_000, real + 2_000_000, None,
                      "cpu  %d 0 0 %d 0 0 0 0 0 0\n" % (busy, 100000 + 6000 * r - busy))
        out += record("ROUND", mono + 2_100_000, real + 2_100_000, None, kv([("seq", r)]))
    return bytes(out)


def long_request():
    """One pool of 3 workers; worker 7001 is idle at 5 requests for 10
    rounds, runs one request for 30 rounds, then is idle at 6."""
    mono, real = 1_000 * NS, 1795_990_000 * NS
    out = bytearray(record("HOST", mono, real, None, kv([
        ("format", 1), ("recorder", "test"), ("hostname", "h9"), ("boot_id", "b9"),
        ("nproc", 2), ("clk_tck", 100), ("interval_ms", 30000), ("cpu_quota_millicores", 0)])))
    out += record("POOL", mono, real, "p", kv([("max_children", 3), ("own_uri", "/status")]))
    reqs = {7001: 5, 7002: 3, 7003: 1}
    ticks = {7001: 100, 7002: 50, 7003: 20}
    busy = 10_000
    for r in range(1, 61):
        mono += 30 * NS
        real += 30 * NS
        now = real // NS
        workers = []
        for pid in (7001, 7002, 7003):
            running = pid == 7001 and 11 <= r <= 40
            if pid == 7001 and r == 11:
                reqs[pid] += 1
            if pid != 7001:
                reqs[pid] += 1 + r % 2
            ticks[pid] += 300 if running else 90
            workers.append(dict(pid=pid, state="Running" if running else "Idle",
                                requests=reqs[pid], duration=900000 if not running else 5000,
                                method="GET", uri="/x", script="/x.php",
                                cpu="0.00" if running else "%d.%02d" % (40 + r % 30, r % 100),
                                memory=2097152))
        page = simulate.status_page("p", "static", 1795_980_000, now, sum(reqs.values()), 0,
                                    workers)
        out += record("STATUS", mono + 1_000_000, real + 1_000_000, "p", page)
        out += record("PIDS", mono + 1_500_000, real + 1_500_000, "p", "".join(
            simulate.pid_stat(pid, ticks[pid], 11692) + "\n" for pid in (7001, 7002, 7003)))
        busy += 3000 + 30 * r
        out += record("STAT", mono + 2_000_000, real + 2_000_000, None,
                      "cpu  %d 0 %d %d 0 0 0 0 0 0\n" % (busy, busy // 5, 100000 + 6000 * r - busy))
        out += record("ROUND", mono + 2_100_000, real + 2_100_000, None, kv([("seq", r)]))
    return bytes(out)


def main():
    global ANALYZE
    ANALYZE = os.path.join(sys.argv[1], "fpm-analyze")
    d = tempfile.mkdtemp(prefix="fpmcpu-seek.")
    try:
        logs = {}
        for f in sorted(os.listdir(os.path.join(TOP, "fixtures", "logs"))):
            logs[f] = [os.path.join(TOP, "fixtures", "logs", f)]
        seeds = os.path.join(TOP, "tests", "fuzz", "seeds", "analyze")
        for f in sorted(os.listdir(seeds)):
            if f.endswith(".fpmlog"):
                logs["seed-" + f] = [os.path.join(seeds, f)]
        logs.update(hard_cases(d))
        # make mutate's hint: only the logs that killed a rule's mutant before
        only = os.environ.get("SEEK_ONLY")
        if only:
            logs = {k: v for k, v in logs.items() if k in only.split(",")}
        def one(name, paths):
            re1 = reencode(d, name, paths)
            # a full read of the re-encoded log is the log
            a = run(["--format", "json"] + paths)
            b = run(["--format", "json", re1])
            say(a[1] == b[1], "%s: cut without a window keeps every figure" % name)
            # frames without summaries: the first half as zstd alone writes it
            if name == "small.fpmlog":
                raw = plain_of(paths[0])
                m = re.compile(rb"#fpmlog1 ROUND \d+ \d+ - (\d+) [0-9a-f]{8}\n").search(
                    raw, len(raw) // 2)
                half = m.end() + int(m.group(1)) + 1
                old = subprocess.run(["zstd", "-q", "-c"], input=raw[:half],
                                     capture_output=True).stdout
                p1 = os.path.join(d, "old-half.zst")
                open(p1, "wb").write(old)
                p2 = os.path.join(d, "new-half.fpmlog")
                open(p2, "wb").write(raw[half:])
                re2 = reencode(d, "new-half", [p2])
                mixed = os.path.join(d, "mixed.zst")
                open(mixed, "wb").write(old + open(re2, "rb").read())
                check(d, "no-summaries-then-summaries", paths, [mixed])
            if name.endswith("two-hosts"):
                skipped = check(d, name, paths, [reencode(d, name + "-each0", paths[:1]),
                                                 reencode(d, name + "-each1", paths[1:])])
            else:
                skipped = check(d, name, paths, [re1])
            frames = open(re1, "rb").read().count(b"fpmsum1\n")
            if frames >= 8:
                say(skipped, "%s (%d frames): some window jumped over frames" % (name, frames))
            return frames >= 8
        # the logs at once, each on a thread (the analyzer runs are processes)
        with ThreadPoolExecutor(max_workers=(os.cpu_count() or 1) + 2) as ex:
            many_frames_seen = sum(ex.map(lambda kv_: one(*kv_), logs.items()))
        if not only:
            say(many_frames_seen >= 10, "logs of many frames were tried (%d)" % many_frames_seen)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print("seek: %d passed, %d failed" % (passed, fails))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
