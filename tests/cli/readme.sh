#!/bin/sh
# The README's sample output is what `make run` prints: the fenced block
# that begins with the bundled log's first line must equal
# `bin/fpm-analyze fixtures/logs/realistic.fpmlog.zst`, byte for byte.
#   tests/cli/readme.sh            check
#   tests/cli/readme.sh --update   rewrite that block from what runs now
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
tmp=$(mktemp -d /tmp/fpmcpu-readme.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
bin/fpm-analyze fixtures/logs/realistic.fpmlog.zst >"$tmp/run" 2>"$tmp/err" ||
    { echo "FAIL: readme: make run's analysis failed" >&2; cat "$tmp/err" >&2; exit 1; }
first=$(head -n 1 "$tmp/run")
python3 - "$tmp/run" "$first" "${1:-}" <<'PY'
import sys
run, first, mode = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
text = open("README.md").read()
lines = text.split("\n")
try:
    start = next(i for i, l in enumerate(lines)
                 if l == first and i > 0 and lines[i - 1] == "```")
except StopIteration:
    sys.exit("FAIL: readme: no fenced block of README.md begins with %r" % first)
end = next(i for i in range(start, len(lines)) if lines[i] == "```")
block = "\n".join(lines[start:end]) + "\n"
if mode == "--update":
    lines[start:end] = run.rstrip("\n").split("\n")
    open("README.md", "w").write("\n".join(lines))
    sys.exit(0)
if block != run:
    import difflib
    sys.stderr.write("FAIL: readme: README.md's sample is not what make run prints:\n")
    sys.stderr.writelines(difflib.unified_diff(block.splitlines(True), run.splitlines(True),
                                               "README.md", "make run"))
    sys.exit(1)
print("readme: 1 passed, 0 failed")
PY
