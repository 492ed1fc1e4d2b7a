"""A FastCGI client for the integration tests' load: cheap enough per
request (no process per request) that the host's CPU it adds is small
beside the requests'.  As a module: request(address, script, query), an
address being a unix socket's path or HOST:PORT.  As a program:
    fcgi_load.py ADDRESS SCRIPT QUERY CLIENTS STOPFILE [PAUSE_MS]
runs CLIENTS connections in a loop, one request each at a time (PAUSE_MS
apart: the worker is idle in between), until STOPFILE exists.
    fcgi_load.py --rate ADDRESS SCRIPT QUERY CLIENTS SECONDS
is a bounded load generator: CLIENTS closed loops without think time for
SECONDS after a second of warm-up; prints the requests completed per second
and their median time in ms.
    fcgi_load.py --rate ADDRESS SCRIPT QUERY CLIENTS SECONDS MASTER_PID
adds the cores the master's workers used over those SECONDS (their utime
and stime, as the kernel counts them).
    fcgi_load.py --pct ADDRESS SCRIPT QUERY CLIENTS SECONDS
prints the requests completed per second and their p50 and p95 in ms
(nearest rank)."""
import os
import socket
import struct
import sys
import threading
import time


def _rec(t, body, rid=1):
    return struct.pack(">BBHHBx", 1, t, rid, len(body), 0) + body


def _nv(k, v):
    k = k.encode()
    v = v if isinstance(v, bytes) else v.encode()
    head = bytes([len(k)])
    head += bytes([len(v)]) if len(v) < 128 else struct.pack(">I", len(v) | 0x80000000)
    return head + k + v


def request(address, script, query, uri=None, method="GET"):
    """One request; uri (bytes or str) is the visitor's REQUEST_URI, by
    default the script's name and the query."""
    if uri is None:
        uri = "/" + os.path.basename(script) + "?" + query
    params = b"".join(_nv(k, v) for k, v in (
        ("SCRIPT_FILENAME", script), ("SCRIPT_NAME", "/" + os.path.basename(script)),
        ("QUERY_STRING", query), ("REQUEST_URI", uri),
        ("REQUEST_METHOD", method), ("SERVER_PROTOCOL", "HTTP/1.1")))
    if address.startswith("/"):
        s = socket.socket(socket.AF_UNIX)
        s.connect(address)
    else:
        host, port = address.rsplit(":", 1)
        s = socket.create_connection((host, int(port)))
    s.sendall(_rec(1, struct.pack(">HB5x", 1, 0)) + _rec(4, params) + _rec(4, b"") + _rec(5, b""))
    while s.recv(65536):
        pass
    s.close()


def main(address, script, query, clients, stop, pause_ms="0"):
    def loop():
        while not os.path.exists(stop):
            try:
                request(address, script, query)
            except OSError:
                time.sleep(0.05)
            time.sleep(int(pause_ms) / 1000)
    ts = [threading.Thread(target=loop, daemon=True) for _ in range(int(clients))]
    for t in ts:
        t.start()
    while not os.path.exists(stop):
        time.sleep(0.2)


def worker_ticks(master):
    """The CPU ticks (utime + stime) of the children of pid master."""
    total = 0
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            f = open("/proc/%s/stat" % d).read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if f[1] == str(master):  # ppid
            total += int(f[11]) + int(f[12])
    return total


def rate(address, script, query, clients, seconds, master=None, pct=False):
    clients, seconds = int(clients), float(seconds)
    start = time.monotonic() + 1.0
    end = start + seconds
    times, lock = [], threading.Lock()

    def loop():
        while True:
            t0 = time.monotonic()
            if t0 >= end:
                return
            request(address, script, query)
            t1 = time.monotonic()
            if start <= t1 <= end:  # completions in the window
                with lock:
                    times.append(t1 - t0)
    ts = [threading.Thread(target=loop) for _ in range(clients)]
    for t in ts:
        t.start()
    cores = ""
    if master:
        time.sleep(max(0.0, start - time.monotonic()))
        t0, k0 = time.monotonic(), worker_ticks(master)
        time.sleep(max(0.0, end - time.monotonic()))
        t1, k1 = time.monotonic(), worker_ticks(master)
        cores = " %.3f" % ((k1 - k0) / os.sysconf("SC_CLK_TCK") / (t1 - t0))
    for t in ts:
        t.join()
    times.sort()
    if pct:
        def rank(p):
            return times[max(0, -(-p * len(times) // 100) - 1)] * 1000 if times else 0
        print("%.3f %.1f %.1f" % (len(times) / seconds, rank(50), rank(95)))
        return
    med = times[len(times) // 2] * 1000 if times else 0
    print("%.3f %.1f%s" % (len(times) / seconds, med, cores))


if __name__ == "__main__":
    if sys.argv[1] == "--rate":
        rate(*sys.argv[2:8])
    elif sys.argv[1] == "--pct":
        rate(*sys.argv[2:7], pct=True)
    else:
        main(*sys.argv[1:7])
