#!/bin/sh
# --format html: the capacity report as one page, opened by a real browser.
# Headless Chromium (Debian's chromium) reads the page of the bundled log
# from disk with the network off (a network namespace of its own as root,
# else no proxy and no name that resolves): its DOM holds every pool, each
# advice and the patch's lines; its screenshot shows ink in every chart's
# place (found by a copy of the page whose charts are magenta blocks of the
# same size).  tidy finds no error or warning; the page's text, charts left
# out, is fixtures/page/realistic.html.  A log whose names would run (an
# onerror, an onload, a script ending the style) gives a page where each is
# text (a route cut to 128 bytes): the canary each carries would change the
# document's title, and the title stays, with the page's
# Content-Security-Policy and without it.  Without gnuplot the page says so
# in one line and keeps every table; its own chart folder is gone once it
# is written.  KEEP=1 keeps the folder of what it made.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
dir=$(mktemp -d /tmp/fpmcpu-html.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$dir"' EXIT INT TERM
. "$top/tests/integration/check.sh"
export SOURCE_DATE_EPOCH=1796000000 TMPDIR="$dir/tmp"
mkdir "$dir/tmp"

# the browser, network off: its own empty network namespace when it can
net=""
if [ "$(id -u)" -eq 0 ] && unshare -n true 2>/dev/null; then net="unshare -n"; fi
browse() {
    timeout 120 $net chromium --headless --no-sandbox --disable-gpu --no-first-run \
        --no-default-browser-check --disable-background-networking --disable-component-update \
        --disable-sync --disable-extensions --proxy-server=127.0.0.1:9 \
        --host-resolver-rules='MAP * ~NOTFOUND' --user-data-dir="$dir/profile" \
        --hide-scrollbars "$@" 2>>"$dir/chromium.log"
}

bin/fpm-analyze --format html -o "$dir/page.html" fixtures/logs/realistic.fpmlog.zst 2>"$dir/err"
check "the page of the bundled log: exit 0" $?
[ ! -s "$dir/err" ]; check "and nothing said" $?
[ -z "$(ls -A "$dir/tmp")" ]; check "its chart folder removed once written" $?
tidy -e -q "$dir/page.html" >"$dir/tidy" 2>&1
check "tidy: valid HTML5, no error and no warning" $?
[ ! -s "$dir/tidy" ] || cat "$dir/tidy" >&2
size=$(stat -c %s "$dir/page.html")
grep -q 'http:\|https:\|<script\|src=' "$dir/page.html"
[ $? -eq 1 ]; check "self-contained: no URL, no script, no source" $?

browse --dump-dom "file://$dir/page.html" >"$dir/page.dom"
check "chromium opens it" $?
browse --window-size=1200,16000 --screenshot="$dir/page.png" "file://$dir/page.html" >/dev/null
check "chromium's screenshot" $?

# the page without gnuplot: every table, the charts' one line
mkdir "$dir/nognuplot"
ln -s "$top/bin/fpm-analyze" "$dir/nognuplot/fpm-analyze"
PATH="$dir/nognuplot" fpm-analyze --format html -o "$dir/plain.html" \
    fixtures/logs/realistic.fpmlog.zst 2>"$dir/err2"
check "without gnuplot: exit 0" $?
grep -c '<p class="note">No charts: they are drawn by gnuplot, which is not installed (Debian: apt-get install gnuplot-nox)</p>' "$dir/plain.html" | grep -qx 1
check "without gnuplot: one line says what the charts need" $?
[ "$(grep -c '<svg' "$dir/plain.html")" = 0 ] && [ "$(grep -c '<table' "$dir/plain.html")" = "$(grep -c '<table' "$dir/page.html")" ]
check "and every table is there" $?
tidy -e -q "$dir/plain.html" >/dev/null 2>&1; check "tidy: the page without charts too" $?
[ -z "$(ls -A "$dir/tmp")" ]; check "its chart folder removed" $?

# --plot DIR: the page's charts are those, and they stay
bin/fpm-analyze --format html --plot "$dir/plots" -o "$dir/withplot.html" \
    fixtures/logs/realistic.fpmlog.zst 2>/dev/null
[ $? -eq 0 ] && [ "$(ls "$dir/plots"/*.svg | wc -l)" = 15 ] && [ "$(ls "$dir/plots"/*.png | wc -l)" = 15 ] &&
    [ "$(grep -c '<svg class="chart"' "$dir/withplot.html")" = 15 ]
check "with --plot DIR: its SVGs in the page, PNGs and SVGs kept" $?
bin/fpm-analyze advise --format html fixtures/logs/small.fpmlog >/dev/null 2>"$dir/err3"
[ $? -eq 2 ] && grep -q 'advise prints text or json, not html' "$dir/err3"
check "advise --format html: a usage error (the page holds advise's figures)" $?

# the hostile names
bin/fpm-analyze --format html -o "$dir/hostile.html" fixtures/logs/hostile-page.fpmlog 2>"$dir/err4"
check "the page of hostile names: exit 0" $?
tidy -e -q "$dir/hostile.html" >"$dir/tidy2" 2>&1; check "tidy: valid HTML5" $?
sed 's/<meta http-equiv="Content-Security-Policy"[^>]*>//' "$dir/hostile.html" >"$dir/nocsp.html"
! grep -q 'Content-Security-Policy' "$dir/nocsp.html"; check "a copy without its CSP" $?
browse --dump-dom "file://$dir/hostile.html" >"$dir/hostile.dom"
browse --dump-dom "file://$dir/nocsp.html" >"$dir/nocsp.dom"
# a censused pool's hostile visitors (section 20): their URIs are routes,
# as text, the page whole
bin/fpm-analyze --format html -o "$dir/census.html" fixtures/logs/census-hostile.fpmlog 2>"$dir/err5"
check "the page of a census of hostile URIs: exit 0" $?
tidy -e -q "$dir/census.html" >"$dir/tidy3" 2>&1; check "tidy: valid HTML5 ($(head -c 200 "$dir/tidy3"))" $?
! grep -q '<script>alert' "$dir/census.html" && grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$dir/census.html" &&
    grep -q '<th>requests</th><th>a second</th>' "$dir/census.html"
check "its routes' markup is text, with their requests" $?

/usr/bin/python3 - "$dir" "$top/fixtures/page/realistic.html" "$size" <<'PY' >"$dir/checks"
import re, sys
from PIL import Image
d, golden, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
def say(ok, what):
    print(("ok " if ok else "FAIL ") + what)
page = open(d + "/page.html", encoding="utf-8").read()
CHART = re.compile(r'<svg class="chart"[^>]*>.*?</svg>', re.S)

# the page's text: its charts left out, as the plots' golden files do
text = CHART.sub('<svg class="chart"/>', page)
want = open(golden, encoding="utf-8").read()
say(text == want, "the page's text, its charts left out, is fixtures/page/realistic.html")
if text != want:
    open(d + "/page.txt", "w").write(text)
say(len(CHART.findall(page)) == 15, "5 charts for each of its 3 pools")
print("note the page: %d bytes" % size)

# the DOM the browser built: every pool, its advice, the patch
dom = open(d + "/page.dom", encoding="utf-8").read()
for pool in ("admin", "api", "shop"):
    say(re.search(r'<section class="pool" id="h1-p\d">\s*<h3>pool %s ' % pool, dom) is not None,
        "the DOM holds pool %s's section" % pool)
rows = re.findall(r'<tr class="binds-(\w+)"><td class="name"><a href="#h1-p\d">(\w+)</a></td>'
                  r'<td>([-\d]+)</td><td>([-\d]+)</td><td>([-\d]+)</td><td>([-\d]+)</td>', dom)
say(sorted((r[1], r[5], r[0]) for r in rows) ==
    [("admin", "-", "none"), ("api", "11", "memory"), ("shop", "6", "memory")],
    "the DOM's answer: admin none, api 11 and shop 6, each bound by memory")
for line in ("-pm.max_children = 12", "+pm.max_children = 11", "-pm.max_children = 40",
             "+pm.max_children = 6", "--- a/etc/php/8.2/fpm/pool.d/shop.conf"):
    say(line in dom, "the DOM holds the patch's line " + line)

# the screenshot: ink where each chart is, found by a copy of the page whose
# charts are magenta blocks of the same size
print("note screenshot: " + d + "/page.png")
blank = CHART.sub('<div style="width:100%;aspect-ratio:720/440;background:#ff00ff"></div>', page)
open(d + "/blank.html", "w", encoding="utf-8").write(blank)
PY
browse --window-size=1200,16000 --screenshot="$dir/blank.png" "file://$dir/blank.html" >/dev/null
check "chromium's screenshot of the page, charts as blocks" $?
/usr/bin/python3 - "$dir" <<'PY' >>"$dir/checks"
import re, sys
from PIL import Image
d = sys.argv[1]
def say(ok, what):
    print(("ok " if ok else "FAIL ") + what)
shot = Image.open(d + "/page.png").convert("RGB")
blank = Image.open(d + "/blank.png").convert("RGB")
say(shot.size == blank.size, "the two screenshots are one size")
w, h = blank.size
data = blank.tobytes()
# the magenta blocks: runs of a row (every other one), joined into boxes
# with the runs of the same columns in the rows below
open_, charts = [], []
for y in range(0, h, 2):
    row = data[3 * w * y:3 * w * (y + 1)]
    for m in re.finditer(rb'(?:\xff\x00\xff){40,}', row):
        if m.start() % 3:
            continue
        x0, x1 = m.start() // 3, m.end() // 3
        box = next((b for b in open_ if b[0] == x0 and b[1] == x1 and b[3] >= y - 2), None)
        if box:
            box[3] = y
        else:
            open_.append([x0, x1, y, y])
charts = [b for b in open_ if b[3] - b[2] > 100]
say(len(charts) == 15, "15 chart blocks found in the copy (%d)" % len(charts))
px = shot.load()
for i, (x0, x1, y0, y1) in enumerate(sorted(charts, key=lambda c: (c[2], c[0]))):
    ink = colour = 0
    for y in range(y0 + 2, y1 - 1, 2):
        for x in range(x0 + 2, x1 - 1, 2):
            r, g, b = px[x, y]
            if min(r, g, b) < 200:
                ink += 1
                if max(r, g, b) - min(r, g, b) > 60:
                    colour += 1
    area = ((y1 - y0) // 2) * ((x1 - x0) // 2)
    say(ink > area // 100, "chart %d at %d,%d: ink on %.1f%% of it (at least 1%%)"
        % (i + 1, x0, y0, 100.0 * ink / area))
    say(px[(x0 + x1) // 2, y0 + 3] != (255, 0, 255), "chart %d: drawn where the block was" % (i + 1))
PY
/usr/bin/python3 - "$dir" <<'PY' >>"$dir/checks"
import re, sys
d = sys.argv[1]
def say(ok, what):
    print(("ok " if ok else "FAIL ") + what)
page = open(d + "/hostile.html", encoding="utf-8").read()
title = re.search(r'<title>(.*?)</title>', page, re.S).group(1)
for name in ("hostile.dom", "nocsp.dom"):
    dom = open(d + "/" + name, encoding="utf-8").read()
    t = re.search(r'<title>(.*?)</title>', dom, re.S).group(1)
    say(t == title.replace("&#39;", "'").replace("&quot;", '"'),
        "%s: the canary left the title as it was (%s)" % (name, t[:60]))
    body = dom[dom.index("<body"):]
    say("<img" not in body and "<script" not in body, "%s: no img and no script element" % name)
    for shown in ('&lt;img src=x onerror="document.title=\'pwned\'"&gt;',
                  "&lt;/style&gt;&lt;script&gt;document.title='pwned'&lt;/script&gt;",
                  ']]&gt;&lt;!-- "it\'s" &amp;amp; caf\ufffd', "p" * 1000, "<code>/" + "w" * 127 + "</code>",
                  '/&lt;img src=x onerror="document.title=\'pwned\'"&gt;.php'):
        say(shown in body, "%s: shown as text: %s" % (name, shown[:40]))
say(page.count('<svg class="chart"') == 20, "the hostile pools' 20 charts inlined")
PY
verdicts "$dir/checks" html_page
summary "html_page"
