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
two decimals and the count of readings, or "- 0" without any.  (Also, for
a test to import: cpu_ratios, the host's busy ratio over each pair, from
the kernel's count in STAT; typical, section 3's TYPICAL of some shares.)

A round is the records up to its ROUND record, whose time is the time of
its readings in READINGS; the pair is that round and the one right before
it, usable when both have STAT and the second's came 5 s to 5 min after the
first's (docs/rules.md section 5: no wait is known over another pair, and
the reading counts as php-fpm gave it).  On a machine busy enough, a round
takes seconds, and its SCHED records lie nearer another round's time than
its own: the round is found by the log's order, never by the nearest time.

The figure is the rule's, not the truth: a worker's wait over its pair is
not the wait of its last request, and on a busy machine the two part either
way (a pool that computes all its time read 89% and 140% in one run)."""
import bisect
import csv
import datetime
import functools
import subprocess
import sys

MIN_PAIR_NS, MAX_PAIR_NS = 5 * 10**9, 300 * 10**9


@functools.lru_cache(maxsize=None)  # scheds and cpu_ratios read one log: decompressed once
def records(log):
    """[(type, mono ns, real ns, pool, body)], each record of LOG in order"""
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
        out.append((head[1].decode(), int(head[2]), int(head[3]), head[4].decode(), body))


def usable(m0, m1):
    """Section 5: a pair whose rounds both have STAT (monotonic ns, or None),
    the second's 5 s to 5 min after the first's"""
    return m0 is not None and m1 is not None and MIN_PAIR_NS <= m1 - m0 <= MAX_PAIR_NS


@functools.lru_cache(maxsize=None)  # a test asks of one log once a window
def scheds(log, pool):
    """[(ROUND's wall seconds, STAT's monotonic ns or None, {pid: (cpu_ns,
    run_delay_ns)} or None)], a round each, in the log's order"""
    out, stat, sched = [], None, None
    for kind, mono, real, name, body in records(log):
        if kind == "SCHED" and name == pool:
            lines = [l.split() for l in body.decode().splitlines() if l.strip()]
            sched = {int(l[0]): (int(l[1]), int(l[2])) for l in lines}
        elif kind == "STAT":
            stat = mono
        elif kind == "ROUND":
            out.append((real / 1e9, stat, sched))
            stat, sched = None, None
    return out


def csv_ms(time):
    """A CSV row's time ("2026-12-04T10:35:45.647Z") in milliseconds"""
    return round(datetime.datetime.strptime(time, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp() * 1000)


def cpu_ratios(log, line, cores):
    """Section 5 and 16.1's host busy ratio over each usable pair, from the
    kernel's own count: the growth of STAT's LINE (`cpu0`, say) less idle
    and iowait, in ticks of the HOST's clk_tck, over the STAT records'
    monotonic interval and CORES, capped at 1.  {the second round's ROUND
    time in milliseconds, as csv_ms gives a CSV row's: ratio}"""
    out, prev, stat, tck = {}, None, None, None
    for kind, mono, real, name, body in records(log):
        if kind == "HOST":
            tck = next((int(l[8:]) for l in body.splitlines() if l.startswith(b"clk_tck=")), tck)
        elif kind == "STAT":
            f = next((l.split() for l in body.decode().splitlines() if l.startswith(line + " ")), None)
            # user nice system idle iowait irq softirq steal
            stat = (mono, sum(int(f[k]) for k in (1, 2, 3, 6, 7, 8))) if f else None
        elif kind == "ROUND":
            if prev and stat and tck and usable(prev[0], stat[0]):
                busy = (stat[1] - prev[1]) / tck / ((stat[0] - prev[0]) / 1e9) / cores
                out[real // 1000000] = min(busy, 1.0)
            prev, stat = stat, None
    return out


def typical(shares):
    """Section 3's TYPICAL of SHARES (hundredths of a percent, as few as
    halving leaves whole): the floor of the bucket holding the ceil(n / 2)-th
    share; None without any"""
    if not shares:
        return None
    m = sorted(shares)[(len(shares) + 1) // 2 - 1]
    if m < 10000:
        return 5 * (m // 500)
    if m < 40000:
        return 100 + 25 * ((m - 10000) // 2500)
    return min(400 + 100 * ((m - 40000) // 10000), 3200)


def busy(log, readings, pool):
    rounds = scheds(log, pool)
    times = [r[0] for r in rounds]
    C = W = n = 0
    for r in csv.DictReader(open(readings)):
        if r["verdict"] != "accepted" or r["pool"] != pool:
            continue
        t = csv_ms(r["time"]) / 1000
        k = bisect.bisect(times, t)  # its ROUND's time, written to the millisecond
        if k == len(rounds) or (k > 0 and t - times[k - 1] < times[k] - t):
            k -= 1
        pid, u = int(r["pid"]), int(r["duration_us"])
        s = round(float(r["cpu_share_pct"]) * 100)
        c = s * u / 10000
        w = 0
        if k > 0:
            (_, m0, before), (_, m1, now) = rounds[k - 1], rounds[k]
            if usable(m0, m1) and before and now and pid in before and pid in now:
                dc = now[pid][0] - before[pid][0]
                dw = now[pid][1] - before[pid][1]
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
