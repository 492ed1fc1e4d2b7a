#!/bin/sh
# The README's sample outputs are what the commands print: the fenced block
# that begins with a command's first line must equal its output, byte for
# byte: `make run` (bin/fpm-analyze on the two bundled logs), advise on
# fixtures/logs/memory.fpmlog, routes on the bundled log by its route=
# parameter and as it is, and routes of the censused front controller.
#   tests/cli/readme.sh            check
#   tests/cli/readme.sh --update   rewrite those blocks from what runs now
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
tmp=$(mktemp -d /tmp/fpmcpu-readme.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
bin/fpm-analyze fixtures/logs/realistic.fpmlog.zst fixtures/logs/census.fpmlog >"$tmp/run" 2>"$tmp/err" &&
    bin/fpm-analyze advise fixtures/logs/memory.fpmlog >"$tmp/advise" 2>>"$tmp/err" &&
    bin/fpm-analyze routes --route-param route --pool shop fixtures/logs/realistic.fpmlog.zst \
        >"$tmp/routes" 2>>"$tmp/err" &&
    bin/fpm-analyze routes --pool shop fixtures/logs/realistic.fpmlog.zst \
        >"$tmp/fc" 2>>"$tmp/err" &&
    bin/fpm-analyze routes --pool shop fixtures/logs/census.fpmlog \
        >"$tmp/census" 2>>"$tmp/err" ||
    { echo "FAIL: readme: a sample's command failed" >&2; cat "$tmp/err" >&2; exit 1; }
python3 - "$tmp" "${1:-}" <<'PY'
import difflib, sys
tmp, mode = sys.argv[1], sys.argv[2]
text = open("README.md").read()
lines = text.split("\n")
bad = 0
for name, what in (("run", "make run"), ("advise", "fpm-analyze advise"),
                   ("routes", "fpm-analyze routes --route-param route"),
                   ("fc", "fpm-analyze routes"), ("census", "fpm-analyze routes (census)")):
    run = open(tmp + "/" + name).read()
    first = run.split("\n", 1)[0]
    try:
        start = next(i for i, l in enumerate(lines)
                     if l == first and i > 0 and lines[i - 1] == "```")
    except StopIteration:
        sys.exit("FAIL: readme: no fenced block of README.md begins with %r" % first)
    end = next(i for i in range(start, len(lines)) if lines[i] == "```")
    block = "\n".join(lines[start:end]) + "\n"
    if mode == "--update":
        lines[start:end] = run.rstrip("\n").split("\n")
    elif block != run:
        sys.stderr.write("FAIL: readme: README.md's sample is not what %s prints:\n" % what)
        sys.stderr.writelines(difflib.unified_diff(block.splitlines(True), run.splitlines(True),
                                                   "README.md", what))
        bad = 1
if mode == "--update":
    open("README.md", "w").write("\n".join(lines))
    sys.exit(0)
if bad:
    sys.exit(1)
print("readme: 5 passed, 0 failed")
PY
