#!/bin/sh
# atoll-topo report in a real browser: Selene's report (469 hosts, 666
# switches) rendered by headless Chromium, its DOM holding one island box per
# island atoll computed (atoll-topo show --json), the histograms and the
# findings atoll-topo check --json reports; a screenshot that is a picture
# (the health colours of the page's style sheet in it), not a blank page; and
# no request leaving the browser: every name resolves to nothing, the net log
# names no host that Chromium does not ask for on an empty page, and a page
# that does load something is caught by the same check. A hostile fabric's
# node descriptions reach the page escaped. Skipped without chromium.
. "$(dirname "$0")/../lib.sh"
N=17
plan $N
if ! command -v chromium >/dev/null || ! command -v python3 >/dev/null; then
    i=0; while [ $i -lt $N ]; do i=$((i + 1)); skip "report $i" "chromium (Debian package chromium) or python3 not installed"; done
    exit 0
fi
work=$(tmpdir)
selene="$ATOLL_SRCDIR/data/fabrics/selene-compute.ibnetdiscover"
# chromium OUT-PREFIX ARGS...: offline, its profile in $work, stderr kept
chrome() {
    _log=$1
    shift
    timeout 120 chromium --headless --no-sandbox --disable-gpu "--host-resolver-rules=MAP * ~NOTFOUND" \
        --disable-background-networking --disable-component-update --disable-sync --disable-extensions \
        --no-first-run --disable-default-apps --user-data-dir="$work/profile-$_log" \
        --log-net-log="$work/$_log.netlog.json" "$@" 2>>"$work/chromium.err"
}
# facts FILE: what the DOM holds, one KEY=VALUE a line
facts() {
    python3 - "$1" <<'EOF'
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.n = {"islands": 0, "hosts": 0, "findings": 0, "scripts": 0, "outside": 0, "footer": 0}
        self.section = None
        self.chart = None
        self.charts = {}
        self.depth = 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "section":
            self.section = a.get("id")
        if tag == "div" and "island" in cls:
            self.n["islands"] += 1
        if tag == "div" and "host" in cls:
            self.n["hosts"] += 1
        if tag == "tr" and "finding" in cls and self.section == "findings":
            self.n["findings"] += 1
        if tag == "script":
            self.n["scripts"] += 1
        if tag == "footer":
            self.n["footer"] += 1
        for k in ("src", "href", "action", "srcset", "poster", "data"):
            if k in a and not (a[k] or "").startswith("#"):
                self.n["outside"] += 1
        if tag == "figure":
            self.chart = a.get("id")
            self.charts[self.chart] = 0
        if tag == "rect" and self.chart:
            self.charts[self.chart] += 1
    def handle_endtag(self, tag):
        if tag == "figure":
            self.chart = None
p = P()
p.feed(open(sys.argv[1], encoding="ascii", errors="replace").read())
for k, v in p.n.items():
    print("%s=%d" % (k, v))
for k, v in p.charts.items():
    print("bars-%s=%d" % (k, v))
EOF
}
# png FILE: WIDTH HEIGHT COLOURS, then the share of the commonest colour (%),
# then "good"/"warn" when the host squares' green and amber are present
png() {
    python3 - "$1" <<'EOF'
import sys, zlib, struct
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if kind == b"IHDR":
        w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + length
assert depth == 8 and ctype in (2, 6) and interlace == 0, "unexpected PNG layout"
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
counts = {}
i = 0
for y in range(h):
    f = raw[i]; line = bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + ((a + b) >> 1)) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    for x in range(0, stride, bpp):
        k = bytes(line[x:x + 3])
        counts[k] = counts.get(k, 0) + 1
top = max(counts.values()) * 100 // (w * h)
flags = [n for n, rgb in (("good", (59, 155, 91)), ("warn", (230, 168, 35))) if bytes(rgb) in counts]
print(w, h, len(counts), top, " ".join(flags))
EOF
}

# 1-2: Selene's report, written whole, reasonable in size
"$TOPO" report "$selene" -o "$work/selene.html" 2>"$work/err"
rc=$?
size=$(wc -c <"$work/selene.html" 2>/dev/null || echo 0)
if [ $rc -eq 0 ] && [ "$size" -gt 10000 ] && [ ! -s "$work/err" ]; then ok "report writes Selene's page ($size bytes)"
else not_ok "report writes Selene's page"; diag "exit $rc, $size bytes" "$(head -5 "$work/err")"; fi
check "Selene's page is under 500 kB ($size bytes)" [ "$size" -lt 500000 ]
# 3: nothing in the page names anything outside it
if ! grep -q -i -E 'https?://|src=|url\(|@import|<script|<link|<iframe|<img' "$work/selene.html" &&
   [ "$(grep -o -i 'href="[^#][^"]*"' "$work/selene.html" | wc -l)" -eq 0 ]; then ok "the page loads and links nothing outside itself"
else not_ok "the page loads and links nothing outside itself"; diag "$(grep -o -i -E '.{20}(https?://|src=|url\(|@import|<script|href=).{30}' "$work/selene.html" | head -5)"; fi

# what atoll computed: islands at every level, hosts, check's findings
"$TOPO" show --json "$selene" >"$work/show.json"
islands=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(sum(v["count"] for v in j["islands"].values()))' "$work/show.json")
hosts=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["hosts"])' "$work/show.json")
"$TOPO" check --json "$selene" >"$work/check.json"
findings=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["findings"]))' "$work/check.json")

# 4-9: the DOM Chromium built, offline
chrome selene --dump-dom "file://$work/selene.html" >"$work/selene.dom"
facts "$work/selene.dom" >"$work/selene.facts"
fact() { sed -n "s/^$1=//p" "$work/$2.facts"; }
diag "atoll: $islands islands, $hosts hosts, $findings findings; DOM: $(tr '\n' ' ' <"$work/selene.facts")"
if [ "$(fact footer selene)" = 1 ]; then ok "Chromium renders the page with every host name resolving to nothing"
else not_ok "Chromium renders the page with every host name resolving to nothing"; diag "$(tail -5 "$work/chromium.err")"; fi
check "one island box per island atoll computed ($islands)" [ "$(fact islands selene)" = "$islands" ]
check "one host square per host ($hosts)" [ "$(fact hosts selene)" = "$hosts" ]
check "the findings table holds check's $findings findings" [ "$(fact findings selene)" = "$findings" ]
if [ "$(fact bars-link-speeds selene)" -ge 1 ] && [ "$(fact bars-link-widths selene)" -ge 1 ] &&
   [ "$(fact bars-rails-per-host selene)" -ge 2 ]; then ok "the speed, width and rails-per-host histograms have bars"
else not_ok "the speed, width and rails-per-host histograms have bars"; fi
check "the DOM has no script and no outside reference" [ "$(fact scripts selene)$(fact outside selene)" = 00 ]

# 10-11: no request left the browser: the page's net log names no host
# beyond those Chromium asks for on an empty page, and a page that loads an
# image and a style sheet is caught by the same check (a negative control)
hosts_of() { grep -o -E '"https?://[^/"]+' "$work/$1.netlog.json" | sort -u; }
printf '<!DOCTYPE html><title>empty</title>\n' >"$work/empty.html"
printf '<!DOCTYPE html><title>loads</title><img src="http://atoll-probe.invalid/a.png"><link rel=stylesheet href="https://atoll-probe.invalid/s.css">\n' >"$work/loads.html"
chrome empty --dump-dom "file://$work/empty.html" >/dev/null
chrome loads --dump-dom "file://$work/loads.html" >/dev/null
hosts_of empty >"$work/empty.hosts"
extra=$(hosts_of selene | grep -v -x -F -f "$work/empty.hosts")
caught=$(hosts_of loads | grep -v -x -F -f "$work/empty.hosts")
if [ -s "$work/selene.netlog.json" ] && [ -z "$extra" ]; then ok "the page asked the network for nothing (Chromium's net log)"
else not_ok "the page asked the network for nothing (Chromium's net log)"; diag "$extra"; fi
if echo "$caught" | grep -q atoll-probe.invalid; then ok "a page that loads an image is caught by the net log check"
else not_ok "a page that loads an image is caught by the net log check"; diag "$caught"; fi

# 12-14: the screenshot is a picture: the top of the page, islands in it
chrome shot --screenshot="$work/selene.png" --window-size=1400,2000 "file://$work/selene.html" >/dev/null
# shellcheck disable=SC2046 # the four numbers and flags as $1..$6
set -- $(png "$work/selene.png" 2>&1)
diag "screenshot: ${1:-?}x${2:-?}, ${3:-?} colours, commonest ${4:-?} %, ${5:-} ${6:-}"
check "Chromium took a 1400x2000 screenshot" [ "${1:-}x${2:-}" = 1400x2000 ]
if [ "${3:-0}" -ge 50 ] && [ "${4:-100}" -lt 90 ] && [ "${5:-}" = good ] && [ "${6:-}" = warn ]; then
    ok "the screenshot shows the islands in the health colours (green hosts, amber warned leaves)"
else not_ok "the screenshot shows the islands in the health colours (green hosts, amber warned leaves)"; fi
chrome blank --screenshot="$work/empty.png" --window-size=1400,2000 "file://$work/empty.html" >/dev/null
# shellcheck disable=SC2046
set -- $(png "$work/empty.png" 2>&1)
check "the same check finds an empty page's screenshot blank (${3:-?} colours)" [ "${3:-0}" -lt 50 ]

# 15-16: hostile node descriptions reach the page escaped, never as markup
# (the descriptions in the fabric, the health result pdsh gathered from its node)
"$TOPO" report "$DATA/report/hostile.topo" --health "$DATA/report/hostile.health" -o "$work/hostile.html" 2>/dev/null
chrome hostile --dump-dom "file://$work/hostile.html" >"$work/hostile.dom"
facts "$work/hostile.dom" >"$work/hostile.facts"
if [ "$(fact scripts hostile)$(fact outside hostile)" = 00 ] && [ "$(fact footer hostile)" = 1 ] &&
   ! grep -q -F -e '<script' -e "onmouseover='" -e '"onmouseover' -e "onfocus='" -e '"onfocus' -e '&amp;</' "$work/hostile.html" &&
   [ "$(grep -c -F '</style>' "$work/hostile.html")" = 1 ] &&
   grep -q -F 'evil&lt;script&gt;alert(1)&lt;/script&gt;&quot;onmouseover=&#39;x&#39;&amp;amp;&lt;/style&gt;' "$work/hostile.html"
then ok "hostile descriptions (<script>, quotes, &, </style>) appear escaped, and no script runs"
else not_ok "hostile descriptions (<script>, quotes, &, </style>) appear escaped, and no script runs"; fi
if ! LC_ALL=C grep -q -P '[\x00-\x08\x0b-\x1f\x7f-\xff]' "$work/hostile.html" && grep -q -i -F 'ERROR: \x01\x1B[2J\xFF\xFE\xC3 pfc: &lt;script&gt;' "$work/hostile.html"; then
    ok "control bytes and bytes that are not UTF-8 appear as \\xNN"
else not_ok "control bytes and bytes that are not UTF-8 appear as \\xNN"; fi

# 17: a failed run (an input that is not there) exits 1 and leaves the old page alone
cp "$work/selene.html" "$work/keep.html"
"$TOPO" report "$work/nosuch.txt" -o "$work/selene.html" 2>/dev/null
rc=$?
if [ $rc -eq 1 ] && cmp -s "$work/selene.html" "$work/keep.html"; then ok "a failed report exits 1 and leaves the page it would replace"
else not_ok "a failed report exits 1 and leaves the page it would replace"; diag "exit $rc"; fi
