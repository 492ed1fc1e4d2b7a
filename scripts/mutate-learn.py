#!/usr/bin/env python3
"""Learns, from the report of a scripts/mutate.sh run, the cheapest test that
killed each mutant, into scripts/mutate.first ("RULE<TAB>HINT" lines; HINT is
a unit test binary, bin/tests/test_NAME, "cli:" and the CLI cases that
failed, or "seek:" and the logs whose windows differed in seek_equal.py).  mutate.sh runs a rule's hint first: a mutant it kills costs a few
seconds instead of the CLI cases, a relink of every unit test and a run of
them all.  A hint that no longer kills its mutant only costs its own run:
the full chain follows, so a stale file is slow, never wrong.  A rule the
report teaches nothing keeps its hint; a rule gone from mutate.list loses it.
usage: scripts/mutate.sh | tee LOG; scripts/mutate-learn.py LOG"""
import glob, os, re, sys

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
where = {}  # unit test function -> its binary
for path in glob.glob(os.path.join(top, "tests", "test_*.c")):
    name = os.path.basename(path)[:-2]
    for fn in re.findall(r"^static void (test_\w+)\(void \*\*state\)", open(path).read(), re.M):
        where.setdefault(fn, "bin/tests/" + name)
hints = {}
for line in open(sys.argv[1]):
    m = re.match(r"^killed\s+(.*?) -> (.*?)\s+\[\d+ds\]$", line.rstrip("\n"))
    if not m:
        continue
    rule, why = m.group(1), m.group(2)
    cases = re.findall(r"FAIL: ([\w.-]+):", why)
    tests = [where[t] for t in why.split() if t in where]
    logs = re.findall(r"FAIL: ([\w.-]+) ", why)  # seek_equal.py names the log first
    if tests:
        hints[rule] = tests[0]
    elif rule.startswith("22 seek") and logs:
        hints[rule] = "seek:" + ",".join(sorted(set(logs)))
    elif cases:
        hints[rule] = "cli:" + ",".join(sorted(set(cases)))
out = os.path.join(top, "scripts", "mutate.first")
# a rule this report teaches nothing (a hang, a kill by a test it cannot
# name) keeps the hint it had, while it is still a rule of mutate.list
rules = {line.split("|", 1)[0] for line in open(os.path.join(top, "scripts", "mutate.list"))
         if line.strip()}
if os.path.exists(out):
    for line in open(out):
        if not line.startswith("#") and "\t" in line:
            rule, hint = line.rstrip("\n").split("\t", 1)
            if rule in rules:
                hints.setdefault(rule, hint)
with open(out, "w") as f:
    f.write("# the cheapest test that killed each mutant (scripts/mutate-learn.py)\n")
    for rule in sorted(hints):
        f.write("%s\t%s\n" % (rule, hints[rule]))
print("%s: %d hints" % (out, len(hints)))
