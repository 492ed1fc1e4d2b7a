#!/usr/bin/env python3
"""The include rules of the tree (docs/design.md, "Layout").

Each folder may include the headers of the folders its rule names, and no
other: formats/ and recorder/ nothing of the analyzer, the analyzer's read/
and report/ nothing of each other, pipeline/ neither of them.  No header
name is in two folders (an include names a file by its base name).  The
Makefile gives each folder only these -I; this test says which line broke
a rule.  Then it breaks the rules in a copy, once each, and checks that it
says so (the test can fail)."""
import os, re, shutil, sys, tempfile

ALLOWED = {
    "common": {"common"},
    "formats": {"common", "formats"},
    "recorder": {"common", "formats", "recorder"},
    "analyzer/pipeline": {"common", "formats", "analyzer/pipeline"},
    "analyzer/read": {"common", "formats", "analyzer/pipeline", "analyzer/read"},
    "analyzer/report": {"common", "formats", "analyzer/pipeline", "analyzer/report"},
    "analyzer/cmd": {"common", "formats", "analyzer/pipeline", "analyzer/read",
                     "analyzer/report", "analyzer/cmd", "analyzer"},
    "analyzer": {"common", "formats", "analyzer/pipeline", "analyzer/read",
                 "analyzer/report", "analyzer/cmd", "analyzer"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def check(top):
    """The broken rules under top, as messages."""
    where, bad = {}, []
    for folder in ALLOWED:
        for f in sorted(os.listdir(os.path.join(top, folder))):
            if f.endswith(".h"):
                if f in where:
                    bad.append("%s is in %s and %s" % (f, where[f], folder))
                where[f] = folder
    for folder, allowed in ALLOWED.items():
        for f in sorted(os.listdir(os.path.join(top, folder))):
            if not f.endswith((".c", ".h")):
                continue
            text = open(os.path.join(top, folder, f), encoding="utf-8").read()
            for m in INCLUDE.finditer(text):
                name = m.group(1)
                line = text.count("\n", 0, m.start()) + 1
                home = where.get(name)
                if home is None:
                    bad.append("%s/%s:%d: %s is in no folder of the rules" % (folder, f, line, name))
                elif home not in allowed:
                    bad.append("%s/%s:%d: includes %s from %s" % (folder, f, line, name, home))
    return bad


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else "."
    passed = failed = 0

    def say(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL: " + what)

    bad = check(top)
    say(not bad, "the tree keeps the include rules:\n  " + "\n  ".join(bad))
    # each rule broken once, in a copy: the check must say it
    breaks = [("analyzer/read", "replay.c", "why.h", "includes why.h from analyzer/report"),
              ("analyzer/report", "json.c", "replay.h", "includes replay.h from analyzer/read"),
              ("analyzer/pipeline", "pairs.c", "seek.h", "includes seek.h from analyzer/read"),
              ("formats", "status.c", "pipeline.h", "includes pipeline.h from analyzer/pipeline"),
              ("recorder", "record.c", "hist.h", "includes hist.h from analyzer/pipeline")]
    with tempfile.TemporaryDirectory() as tmp:
        for folder in ALLOWED:
            os.makedirs(os.path.join(tmp, folder), exist_ok=True)
            for f in os.listdir(os.path.join(top, folder)):
                if f.endswith((".c", ".h")):
                    shutil.copy(os.path.join(top, folder, f), os.path.join(tmp, folder, f))
        for folder, f, inc, expect in breaks:
            path = os.path.join(tmp, folder, f)
            orig = open(path).read()
            open(path, "w").write('#include "%s"\n' % inc + orig)
            said = check(tmp)
            say(any(expect in b for b in said), "%s/%s including %s is caught (%s)" % (folder, f, inc, said))
            open(path, "w").write(orig)
        shutil.copy(os.path.join(tmp, "analyzer/pipeline/hist.h"), os.path.join(tmp, "analyzer/report/hist.h"))
        say(any("hist.h is in" in b for b in check(tmp)), "a header name in two folders is caught")
    print("layout: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
