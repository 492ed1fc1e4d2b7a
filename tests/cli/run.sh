#!/bin/sh
# Command-level tests: each tests/cli/cases/NAME.args holds one line of
# arguments for bin/fpm-analyze, or bin/fpm-record when NAME starts with
# "record-" (run from the top of the tree); NAME.out,
# NAME.err and NAME.rc beside it are what it must print and exit with.
# @TMP@ in the arguments is a fresh scratch folder (written back as @TMP@ in
# what is compared); NAME.setup, when there, runs first (sh, W=that folder)
# and NAME.after last: it must exit 0 (that nothing was written over, say);
# NAME.stdin names the file standard input is read from (else /dev/null).
# JSON output is also parsed back with python3's json module.
#   tests/cli/run.sh            run every case
#   tests/cli/run.sh --update   rewrite the expected files from what runs now
#   tests/cli/run.sh --only A,B run the cases A and B only (make mutate's hints)
# The cases run CPUs + 2 at a time (CLI_JOBS), each in a process of its own.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
update=0 only="" one=""
[ "${1:-}" = --one ] && { one=$2; shift 2; } # one case, for the driver below
[ "${1:-}" = --update ] && update=1
[ "${1:-}" = --only ] && only=",${2:-},"
if [ -z "$one" ]; then
    # the cases, CPUs + 2 at a time, each in its own scratch folder; what
    # each says is printed whole, in the cases' order, once all are done
    res=$(mktemp -d /tmp/fpmcpu-cli-res.XXXXXX)
    trap 'rm -rf "$res"' EXIT INT TERM
    for args in tests/cli/cases/*.args; do
        base=$(basename "${args%.args}")
        case $only in "" | *,"$base",*) echo "$base" ;; esac
    done | xargs -P "${CLI_JOBS:-$(( $(nproc) + 2 ))}" -I{} \
        sh -c 'sh "$0" --one "$1" $2 > "$3/$1.log" 2>&1' "$0" {} "$([ $update -eq 1 ] && echo --update)" "$res"
    [ $update -eq 1 ] && { echo "tests/cli/cases updated"; exit 0; }
    pass=0 fail=0
    for log in "$res"/*.log; do
        sed '$d' "$log" >&2
        case $(tail -n 1 "$log") in "cli: 1 passed, 0 failed") pass=$((pass + 1)) ;; *) fail=$((fail + 1)) ;; esac
    done
    echo "cli: $pass passed, $fail failed"
    [ $fail -eq 0 ]
    exit
fi
tmp=$(mktemp -d /tmp/fpmcpu-cli.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0 fail=0
for args in tests/cli/cases/"$one".args; do
    name=${args%.args}
    base=$(basename "$name")
    case $only in "" | *,"$base",*) ;; *) continue ;; esac
    case $base in record-*) bin=bin/fpm-record ;; *) bin=bin/fpm-analyze ;; esac
    W=$tmp/w; rm -rf "$W"; mkdir "$W"; export W
    [ -f "$name.setup" ] && sh "$name.setup"
    # shellcheck disable=SC2046 # word splitting of the argument line is wanted
    in=/dev/null
    [ -f "$name.stdin" ] && in=$(sed "s|@TMP@|$W|g" "$name.stdin")
    LC_ALL=de_DE.UTF-8 timeout 60 $bin $(sed "s|@TMP@|$W|g" "$args") <"$in" >"$tmp/out" 2>"$tmp/err"
    echo $? >"$tmp/rc"
    for k in out err; do sed -i "s|$W|@TMP@|g" "$tmp/$k"; done
    if [ $update -eq 1 ]; then
        cp "$tmp/out" "$name.out"; cp "$tmp/err" "$name.err"; cp "$tmp/rc" "$name.rc"
        continue
    fi
    ok=1
    for k in out err rc; do
        if ! cmp -s "$tmp/$k" "$name.$k"; then
            echo "FAIL: $base: standard $k differs:" >&2
            diff -u "$name.$k" "$tmp/$k" | head -20 >&2
            ok=0
        fi
    done
    if [ -f "$name.after" ] && ! sh "$name.after" >&2; then
        echo "FAIL: $base: $name.after says no" >&2; ok=0
    fi
    if grep -q -- '--format json' "$args" && [ "$(cat "$tmp/rc")" = 0 ]; then
        python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out" ||
            { echo "FAIL: $base: not JSON" >&2; ok=0; }
    fi
    if grep -q -- '--format csv' "$args" && [ "$(cat "$tmp/rc")" = 0 ]; then
        # every figure of the JSON's host and pool objects, flattened, is a
        # column, and each row holds the JSON's values
        # shellcheck disable=SC2046
        timeout 60 $bin $(sed -e "s|@TMP@|$W|g" -e 's/--format csv/--format json/' "$args") \
            <"$in" >"$tmp/json" 2>/dev/null
        python3 - "$tmp/out" "$tmp/json" <<'PY' || { echo "FAIL: $base: the CSV is not the JSON flattened" >&2; ok=0; }
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head, body = rows[0], rows[1:]
def flat(o, pre=""):
    out = {}
    for k, v in o.items():
        key = pre + "_" + k if pre else k
        if isinstance(v, dict):
            out.update(flat(v, key))
        elif not isinstance(v, list):
            out[key] = v
    return out
want = []
for h in json.load(open(sys.argv[2]))["hosts"]:
    hf = flat({k: v for k, v in h.items() if k != "pools"})
    for p in h["pools"]:
        pf = flat(p)
        assert not set(pf) & set(hf), set(pf) & set(hf)
        want.append({**hf, **pf})
assert len(body) == len(want), (len(body), len(want))
for r, w in zip(body, want):
    assert len(r) == len(head)
    got = dict(zip(head, r))
    assert got.pop("schema") == "8"
    # a null object (fit, steal_probe) stands for its columns
    missing = {k for k in set(w) - set(got)
               if w[k] is not None or not any(c.startswith(k + "_") for c in head)}
    assert not missing, missing
    for k, v in got.items():
        x = w.get(k)  # a column under a null object (fit, steal_probe) is empty
        if x is None:
            assert v == "", (k, v)
        elif isinstance(x, str):
            assert v == x, (k, v, x)
        elif isinstance(x, bool):
            assert v == ("true" if x else "false"), (k, v, x)
        else:
            assert float(v) == float(x), (k, v, x)
PY
    fi
    if grep -q -- '--format openmetrics' "$args" && [ "$(cat "$tmp/rc")" = 0 ]; then
        # strict OpenMetrics 1.0: Debian's python3 with prometheus_client's parser
        /usr/bin/python3 -c '
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse
list(parse(open(sys.argv[1]).read()))' "$tmp/out" ||
            { echo "FAIL: $base: not OpenMetrics 1.0 (prometheus_client)" >&2; ok=0; }
    fi
    if grep -q -- '--format prometheus' "$args" && [ "$(cat "$tmp/rc")" = 0 ]; then
        promtool check metrics <"$tmp/out" || { echo "FAIL: $base: promtool says no" >&2; ok=0; }
    fi
    if [ $ok -eq 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
[ $update -eq 1 ] && { echo "tests/cli/cases updated"; exit 0; }
echo "cli: $pass passed, $fail failed"
[ $fail -eq 0 ]
