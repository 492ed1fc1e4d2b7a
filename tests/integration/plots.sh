#!/bin/sh
# --plot: per pool 5 plots (the histogram, the fit, the series, memory and
# the bounds) as PNG and SVG with their .dat and .gp files; a
# pool named  a"; system("touch /tmp/fpmcpu-pwned"); "  is printed, not
# executed; without gnuplot the data and scripts are written and the exit
# status is 0.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
dir=$(mktemp -d /tmp/fpmcpu-plots.XXXXXX)
trap 'rm -rf "$dir"' EXIT INT TERM
. "$top/tests/integration/check.sh"
rm -f /tmp/fpmcpu-pwned

bin/fpm-analyze --plot "$dir/p" fixtures/logs/realistic.fpmlog.zst fixtures/logs/odd-names.fpmlog \
    >/dev/null 2>"$dir/err"
check "exit 0" $?
grep -q '6 pool(s) plotted' "$dir/err"; check "says what it plotted" $?
[ ! -e /tmp/fpmcpu-pwned ]; check "the pool name was not executed by gnuplot" $?
[ "$(ls "$dir/p"/*.png | wc -l)" = 30 ] && [ "$(ls "$dir/p"/*.svg | wc -l)" = 30 ]
check "5 PNG and 5 SVG per pool" $?
python3 - "$dir/p" <<'PY'
import glob, sys, xml.etree.ElementTree as ET
bad = 0
for f in glob.glob(sys.argv[1] + "/*.png"):
    b = open(f, "rb").read()
    if not b.startswith(b"\x89PNG\r\n\x1a\n") or len(b) < 5000:
        print("not a PNG of some size:", f); bad = 1
for f in glob.glob(sys.argv[1] + "/*.svg"):
    try:
        root = ET.parse(f).getroot()
        if not root.tag.endswith("svg"):
            raise ValueError(root.tag)
    except Exception as e:
        print("not SVG:", f, e); bad = 1
sys.exit(bad)
PY
check "PNGs by signature and size, SVGs parse as XML" $?
gp=$(ls "$dir/p"/04-*.gp)
grep -qF "name = 'a\"; system(\"touch /tmp/fpmcpu-pwned\"); \"'.' on '.'web\"4'" "$gp"
check "the name is one single-quoted gnuplot string" $?
gq=$(ls "$dir/p"/06-*.gp)
grep -qF "name = 'it''s ''; system(\"touch /tmp/fpmcpu-pwned\"); '''.' on '.'web\"4'" "$gq"
check "a single quote in a name is doubled inside the gnuplot string" $?
(cd "$dir/p" && gnuplot "$(basename "$gq")" 2>/dev/null); check "and gnuplot renders that script" $?
grep -q '^\$series << EOD$' "$gp" && grep -q '^\$hist << EOD$' "$gp"; check "data in datablocks" $?
grep -q 'noenhanced' "$gp"; check "titles are noenhanced" $?
gs=$(ls "$dir/p"/03-web1-shop.gp)
grep -q '^\$memhist << EOD$' "$gs" && grep -q '^\$memory << EOD$' "$gs"; check "the memory plot's data in datablocks" $?
grep -q "title 'W = 80 MiB: the 95th percentile, rounded up'" "$gs"; check "the memory plot marks W (80 MiB)" $?
grep -q "^knee = 3.89[0-9]*$" "$gs" && grep -q "the knee, %.2f: past it more workers only wait" "$gs"
check "the bounds plot marks the knee" $?
grep -q "pm.max_children now (40)" "$gs"; check "and where pm.max_children puts the pool" $?
(cd "$dir/p" && gnuplot 03-web1-shop.gp 2>/dev/null); check "a .gp re-renders by itself" $?

# without gnuplot on PATH
mkdir "$dir/empty"
PATH="$dir/empty" "$top/bin/fpm-analyze" --plot "$dir/q" fixtures/logs/small.fpmlog >/dev/null 2>"$dir/err2"
check "without gnuplot: exit 0" $?
grep -q 'gnuplot is not installed (Debian: gnuplot-nox); the data and scripts are in' "$dir/err2"
check "without gnuplot: says how to render" $?
[ "$(ls "$dir/q"/*.gp | wc -l)" = 2 ] && [ "$(ls "$dir/q"/*.dat | wc -l)" = 10 ] && ! ls "$dir/q"/*.png >/dev/null 2>&1
check "without gnuplot: .gp and .dat written, no image" $?

# outputs only into files that are the analyzer's own (it often runs as root)
echo keep > "$dir/target"
mkdir "$dir/l" && ln -s "$dir/target" "$dir/l/02-web1-shop.points.dat"
"$top/bin/fpm-analyze" --plot "$dir/l" fixtures/logs/small.fpmlog >/dev/null 2>"$dir/err3"
[ $? -eq 2 ] && [ "$(cat "$dir/target")" = keep ]; check "--plot: a symbolic link in the folder is refused, its target untouched" $?
grep -q 'points.dat: is a symbolic link, not a regular file: refused' "$dir/err3"; check "and said" $?
mkdir "$dir/f" && mkfifo "$dir/f/01-web1-api-hist.png"
timeout 20 "$top/bin/fpm-analyze" --plot "$dir/f" fixtures/logs/small.fpmlog >/dev/null 2>"$dir/err4"
[ $? -eq 2 ] && [ -p "$dir/f/01-web1-api-hist.png" ]; check "--plot: a FIFO where an image goes is refused" $?
"$top/bin/fpm-analyze" --plot fixtures/logs/small.fpmlog fixtures/logs/small.fpmlog >/dev/null 2>&1
[ $? -eq 2 ]; check "--plot onto a regular file: exit 2, no crash" $?
mkfifo "$dir/fifo.json"
timeout 20 "$top/bin/fpm-analyze" --format json -o "$dir/fifo.json" fixtures/logs/small.fpmlog 2>"$dir/err5"
[ $? -eq 2 ] && [ -p "$dir/fifo.json" ]; check "-o onto a FIFO is refused, the FIFO stays" $?
# a device node (the zero device: writing into it would harm nothing) is
# refused; the null device alone is accepted, the place for what is unwanted
if [ "$(id -u)" -eq 0 ] && mknod "$dir/zero" c 1 5 2>/dev/null; then
    "$top/bin/fpm-analyze" --format json -o "$dir/zero" fixtures/logs/small.fpmlog 2>"$dir/err6"
    [ $? -eq 2 ] && [ -c "$dir/zero" ]; check "-o onto a device as root: refused, still a device" $?
    grep -q 'zero: is a device, not a regular file: refused' "$dir/err6"; check "and said" $?
    "$top/bin/fpm-analyze" --csv-rounds "$dir/zero" fixtures/logs/small.fpmlog >/dev/null 2>&1
    [ $? -eq 2 ] && [ -c "$dir/zero" ]; check "--csv-rounds onto a device: refused" $?
fi
"$top/bin/fpm-analyze" --format json -o /dev/null --csv-rounds /dev/null fixtures/logs/small.fpmlog 2>"$dir/err7"
[ $? -eq 0 ] && [ -c /dev/null ] && [ ! -s "$dir/err7" ]; check "-o and --csv-rounds /dev/null: written, still the null device" $?
summary "plots"
