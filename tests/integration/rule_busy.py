#!/usr/bin/env python3
"""The busy share a pool's readings give under docs/rules.md 17.3 and 10,
recomputed from what php-fpm and the kernel counted, for the integration
tests to hold the analyzer to on a busy machine.

    rule_busy.py LOG READINGS POOL

LOG is the recording (zstd), READINGS the analyzer's --csv-readings of the
same window.  Each accepted reading of POOL, with c = s x u / 10000 its CPU,
is corrected by its worker's wait over the pair that ends at its round (the
growth of cpu_ns, dc, and of run_delay_ns, dw, between the worker's SCHED
lines of the round before and its own): w = min(c x dw / dc, u - c / 10),
s' = s x u / (u - w) hundredths and d' = floor((u - w) / 1000) ms; then
C += s' x d', W += d' and the busy share is C / W / 100.  Prints it with
two decimals and the count of readings, or "- 0" without any.

The figure is the rule's, not the truth: a worker's wait over its pair is
not the wait of its last request, and on a busy machine the two part either
way (a pool that computes all its time read 89% and 140% in one run)."""
import bisect
import csv
import datetime
import functools
import subprocess
import sys


@functools.lru_cache(maxsize=None)  # a test asks of one log once a window
def scheds(log, pool):
    """[(wall seconds, {pid: (cpu_ns, run_delay_ns)})], a SCHED record of POOL each"""
    raw = subprocess.run(["zstdcat", log], check=True, stdout=subprocess.PIPE).stdout
    out, at = [], 0
    while True:
        at = raw.find(b"#fpmlog1 ", at)
        if at < 0:
            return out
        eol = raw.index(b"\n", at)
        head = raw[at:eol].split()
        size = int(head[5])
        body = raw[eol + 1:eol + 1 + size]
        at = eol + 1 + size
        if head[1] == b"SCHED" and head[4].decode() == pool:
            lines = [l.split() for l in body.decode().splitlines() if l.strip()]
            out.append((int(head[3]) / 1e9, {int(l[0]): (int(l[1]), int(l[2])) for l in lines}))


def busy(log, readings, pool):
    rounds = scheds(log, pool)
    times = [r[0] for r in rounds]
    C = W = n = 0
    for r in csv.DictReader(open(readings)):
        if r["verdict"] != "accepted" or r["pool"] != pool:
            continue
        t = datetime.datetime.strptime(r["time"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(
            tzinfo=datetime.timezone.utc).timestamp()
        k = bisect.bisect(times, t)  # the round nearest the reading's time
        if k == len(rounds) or (k > 0 and t - times[k - 1] < times[k] - t):
            k -= 1
        pid, u = int(r["pid"]), int(r["duration_us"])
        s = round(float(r["cpu_share_pct"]) * 100)
        c = s * u / 10000
        w = 0
        if k > 0 and pid in rounds[k][1] and pid in rounds[k - 1][1]:
            dc = rounds[k][1][pid][0] - rounds[k - 1][1][pid][0]
            dw = rounds[k][1][pid][1] - rounds[k - 1][1][pid][1]
            if dc > 0 and dw >= 0 and u - c / 10 > 0:
                w = min(c * dw / dc, u - c / 10)
        d = int((u - w) // 1000)
        C += int(s * u / (u - w) + 0.5) * d
        W += d
        n += 1
    return (C / W / 100 if W else None), n


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: rule_busy.py LOG READINGS POOL")
    share, count = busy(*sys.argv[1:])
    print("- 0" if share is None else "%.2f %d" % (share, count))
