#!/usr/bin/env python3
"""docs/rules.md 20.2 defines a line's match as Python's re.fullmatch of the
format's pattern (re.DOTALL): this checks bin/tests/afmatch (formats/
accessfmt.c) against it, on random formats of php-fpm's fields and random
lines made of their pieces, and on hostile ones, each split item by item.
usage: re_equal.py BIN [CASES]"""
import random, re, subprocess, sys

CLASSES = {"share": r"[-+0-9.a-zA-Z]+", "decimal": r"[0-9.]+", "integer": r"[0-9]+",
           "time": r"[0-9]{2}/[^/ ]+/[0-9]{4}:[0-9]{2}:[0-9]{2}:[0-9]{2} [-+][0-9]{4}",
           "text": r".*?"}
FIELDS = [("%C", "share"), ("%{total}C", "share"), ("%{user}C", "share"), ("%d", "decimal"),
          ("%{mili}d", "decimal"), ("%{micro}d", "decimal"), ("%M", "integer"),
          ("%{kilo}M", "integer"), ("%p", "integer"), ("%P", "integer"), ("%s", "integer"),
          ("%l", "integer"), ("%t", "time"), ("%T", "time"), ("%{REQUEST_URI}e", "text"),
          ("%m", "text"), ("%n", "text"), ("%r", "text"), ("%q", "text"), ("%Q", "text"),
          ("%f", "text"), ("%R", "text"), ("%u", "text"), ("%{%H}t", "text")]
LITS = [" ", "  ", "\"", "%%", "-", "/", "?", "[", "]", ":", "x"]
SAMPLES = {"share": ["99.50", "0.00", "nan", "-0.00", "1e3"], "decimal": ["0.164", "12", "1.2.3"],
           "integer": ["4242", "0", "200"], "time": ["07/Dec/2026:00:14:45 +0000"],
           "text": ["GET", "/a b", "/x?y=\"1\"", "", "-", "200 1.0 2"]}
PIECES = ["07/Dec/2026:00:14:45 +0000", "12", "0.164", "99.50", "nan", "-0.00", "GET", " ",
          "\"", "%", "/a b", "?x=1", "-", "1.2.3", "abc", ":", "/", "+0000", "", "4242", "  "]


def pattern(fmt_items):
    out, items = [], []
    for kind, text in fmt_items:
        if kind == "lit":
            lit = text.replace("%%", "%")
            if items and items[-1][0] == "lit":
                items[-1] = ("lit", items[-1][1] + lit)
            else:
                items.append(("lit", lit))
        else:
            items.append(("field", kind))
    for kind, v in items:
        out.append("(" + (re.escape(v) if kind == "lit" else CLASSES[v]) + ")")
    return re.compile("".join(out).encode(), re.DOTALL), len(items)


def main():
    bin_, cases = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 300
    rnd = random.Random(20)
    plan, inp = [], []  # what each case asks, and the C side's input for all of them
    for c in range(cases):
        fmt_items = []
        for _ in range(rnd.randint(1, 7)):
            if rnd.random() < 0.5:
                f = rnd.choice(FIELDS)
                fmt_items.append((f[1], f[0]))
            else:
                fmt_items.append(("lit", rnd.choice(LITS)))
        fmt = "".join(t for _, t in fmt_items)
        lines = ["".join(rnd.choice(PIECES) for _ in range(rnd.randint(0, 9)))
                 for _ in range(20)]
        for _ in range(20):  # lines made after the format, a piece a field: most match
            lines.append("".join(t.replace("%%", "%") if k == "lit" else
                                 rnd.choice(SAMPLES[k] + PIECES[:3]) for k, t in fmt_items))
        if c % 10 == 0:  # hostile: long runs the backtracking gives up on (short
            # enough for Python's own backtracking, exponential in the text fields)
            lines.append(" " * 48)
            lines.append("1" * 48 + " x")
        plan.append((fmt, fmt_items, lines))
        inp.append("F" + fmt + "\n" + "".join("L" + l + "\n" for l in lines))
    out = subprocess.run([bin_], input="".join(inp).encode(), capture_output=True,
                         check=True).stdout.decode().split("\n")
    bad = checked = matched = exact = 0
    at = 0
    for fmt, fmt_items, lines in plan:
        pat, n = pattern(fmt_items)
        if out[at] != "ok":
            bad += 1
            print("FAIL: format %r: %s" % (fmt, out[at]))
        at += 1
        for line in lines:
            g, steps = out[at].rsplit(" #", 1)
            at += 1
            exact += int(steps) > 4 * (len(line.encode()) + n + 16)  # past the backtracking
            m = pat.fullmatch(line.encode()) if len(line.encode()) <= 4096 else None
            want = "-" if not m else " ".join("%d:%d" % (m.start(k), m.end(k) - m.start(k))
                                             for k in range(1, n + 1))
            checked += 1
            matched += want != "-"
            if g != want:
                bad += 1
                if bad <= 5:
                    print("FAIL: format %r line %r: %s, re says %s" % (fmt, line[:80], g, want))
    print("accessfmt: %d lines of %d formats (%d matching, %d by the exact search) split as "
          "re.fullmatch splits them, %d not" % (checked - bad, cases, matched, exact, bad))
    sys.exit(1 if bad or not exact else 0)


main()
