#!/usr/bin/env python3
"""A hostile FastCGI peer for the recorder's tests: one unix socket per
behaviour in DIR, served until the stop file appears or 120 s have passed.
  hostile_peer.py DIR
close    accepts and closes at once
garbage  answers with bytes that are not FastCGI
bigrec   announces a 65535-byte record, sends 10 bytes of it and closes
trickle  sends a valid response one byte a second
huge     sends a 100 MB body
silent   accepts and never answers
"""
import os, socket, struct, sys, threading, time

d = sys.argv[1]
deadline = time.time() + 120


def rec(t, content):
    pad = (8 - len(content) % 8) % 8
    return struct.pack(">BBHHBB", 1, t, 1, len(content), pad, 0) + content + b"\0" * pad


def read_request(c):
    c.settimeout(5)
    try:
        c.recv(65536)
    except OSError:
        pass


def serve(kind, c):
    try:
        if kind == "close":
            return
        read_request(c)
        if kind == "garbage":
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
        elif kind == "bigrec":
            c.sendall(struct.pack(">BBHHBB", 1, 6, 1, 65535, 0, 0) + b"x" * 10)
        elif kind == "trickle":
            body = rec(6, b"Status: 200 OK\r\n\r\n{\"processes\":[]}") + rec(3, bytes(8))
            for b in body:
                if time.time() > deadline:
                    break
                c.sendall(bytes([b]))
                time.sleep(1)
        elif kind == "huge":
            c.sendall(rec(6, b"Content-type: text/plain\r\n\r\n"))
            chunk = rec(6, b"y" * 65528)
            for _ in range(100 * 1024 * 1024 // len(chunk)):
                c.sendall(chunk)
        elif kind == "silent":
            while time.time() < deadline and not os.path.exists(os.path.join(d, "stop")):
                time.sleep(0.2)
    except OSError:
        pass  # the recorder hung up: that is what it should do
    finally:
        c.close()


def listen(kind):
    path = os.path.join(d, kind + ".sock")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen(16)
    s.settimeout(0.5)
    while time.time() < deadline and not os.path.exists(os.path.join(d, "stop")):
        try:
            c, _ = s.accept()
        except socket.timeout:
            continue
        threading.Thread(target=serve, args=(kind, c), daemon=True).start()
    s.close()


kinds = ["close", "garbage", "bigrec", "trickle", "huge", "silent"]
threads = [threading.Thread(target=listen, args=(k,), daemon=True) for k in kinds]
for t in threads:
    t.start()
open(os.path.join(d, "ready"), "w").close()
for t in threads:
    t.join()
