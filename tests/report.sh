#!/bin/sh
# report.html and --t4: a compile-only run writes a self-contained page that says nothing was
# timed; synthetic timed, untimed and capped results (the unit binary's html_ tests write them:
# tests/t_html.c, nothing measured) make pages that a real headless browser (chromium) loads
# without console errors, drawing the expected number of points in every view the page offers;
# results.t4.json is checked against the T4 results schema (tests/t4_check.py).
# usage: tests/report.sh [TUNER]   (default: $TUNER_BINDIR/tuner, else out/bin/tuner; the unit
# binary beside it)
# The browser checks are skipped (said so, and counted) where chromium is missing or
# TUNER_NO_BROWSER=1. TUNER_CHROMIUM names the browser (default: chromium on PATH).
# Ends with "report: N passed, N failed" (", N skipped" after it where some were); exits
# non-zero on any failure.
set -u
cd "$(dirname "$0")/.." || exit 2
T=${1:-${TUNER_BINDIR:-out/bin}/tuner}
U=$(dirname "$T")/unit
. tests/lib.sh
tmpdir report
export TUNER_CACHE="${TUNER_CACHE:-$tmp/cache}"

# self_contained NAME FILE: nothing the page would fetch: no URL, no linked stylesheet, script
# source, image or font
self_contained() {
	if grep -Eion 'https?://|<link|<img|<iframe|<object|<embed|[[:space:]](src|href)=|url\(|@import|@font-face' "$2" >"$tmp/refs"; then
		bad "$1" "$(head -n 5 "$tmp/refs")"
	else
		ok "$1"
	fi
}
# the page's data block as JSON, into FILE.data.json
page_data() {
	python3 -c '
import json, re, sys
t = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"<script type=\"application/json\" id=\"data\">(.*?)</script>", t, re.S)
json.dump(json.loads(m.group(1)), open(sys.argv[1] + ".data.json", "w"))' "$1"
}

# (a) a compile-only run: report.html beside results.json, self-contained, says nothing was
# timed and holds every compiled variant's resources, no timings
d=$tmp/o/scale/untimed-sm_90
expect untimed_run 0 $T -j 2 --arch sm_90 --t4 --out "$tmp/o" tests/kernels/scale.yaml
[ -s "$d/report.html" ] && ok untimed_report_written || bad untimed_report_written "$(ls "$d")"
self_contained untimed_self_contained "$d/report.html"
has untimed_said "<strong>Nothing was timed</strong>: " "$d/report.html"
if page_data "$d/report.html" 2>"$tmp/py" && python3 -c '
import json, sys
p, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert p["timed"] is False and p["kernel"] == "scale" and p["params"] == ["BLOCK", "UNROLL"], p
tried = [v for v in r["variants"] if v["status"] not in ("dropped", "skipped")]
assert [x["id"] for x in p["rows"]] == [v["id"] for v in tried], "rows: the variants tried, in rank order"
for x, v in zip(p["rows"], tried):
    assert not {"ms", "gbs", "pc", "win", "tie"} & set(x), x
    assert x["st"] == v["status"] and x["regs"] == v["registers"] and x["spill"] == v["spill_stores"] + v["spill_loads"], (x, v)
' "$d/report.html.data.json" "$d/results.json" 2>>"$tmp/py"; then ok untimed_data; else bad untimed_data "$(cat "$tmp/py")"; fi
untimed_points=$(python3 -c '
import json, sys
print(sum(v["status"] == "untimed" and v.get("registers", -1) >= 0 for v in json.load(open(sys.argv[1]))["variants"]))' "$d/results.json")
[ "${untimed_points:-0}" -gt 0 ] && ok "untimed_compiled_variants ($untimed_points)" || bad untimed_compiled_variants
# without --t4 no T4 file
expect no_t4_run 0 $T -j 2 --arch sm_90 --out "$tmp/n" tests/kernels/scale.yaml
[ -s "$tmp/n/scale/untimed-sm_90/report.html" ] && [ ! -e "$tmp/n/scale/untimed-sm_90/results.t4.json" ] &&
	ok t4_only_when_asked || bad t4_only_when_asked "$(ls "$tmp/n/scale/untimed-sm_90")"
$T --help >"$tmp/help" 2>&1
has t4_in_usage "--t4 " "$tmp/help"

# (b) synthetic results (nothing measured): the unit binary writes the pages and a T4 file
mkdir -p "$tmp/fx"
if TUNER_TEST_HTML_DIR="$tmp/fx" "$U" html_ >"$tmp/unit.log" 2>&1 &&
	TUNER_TEST_HTML_DIR="$tmp/fx" "$U" t4_ >>"$tmp/unit.log" 2>&1; then
	ok fixture_pages_written
else
	bad fixture_pages_written "$(cat "$tmp/unit.log")"
fi
for f in timed untimed cap; do
	self_contained "fixture_${f}_self_contained" "$tmp/fx/$f.html"
done
has fixture_cap_said "This page holds the best 20000 of the 25000 variants tried" "$tmp/fx/cap.html"

# (c) a real browser: each page loads without a console message (the page logs nothing of its
# own: any is an error), its script draws N points (body data-status="ok N") and, at
# #selftest, every combination of the three <select>s draws the points that have its value
# (data-selftest="ok K views")
browser=${TUNER_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
# load NAME FILE N
load() {
	timeout 180 "$browser" --headless --disable-gpu --no-sandbox --no-first-run \
		--user-data-dir="$tmp/chromium-profile" --enable-logging=stderr --v=0 \
		--dump-dom "file://$2#selftest" >"$tmp/dom" 2>"$tmp/browser.log"
	rc=$?
	st=$(sed -n 's/.*<body[^>]* data-status="\([^"]*\)".*/\1/p' "$tmp/dom" | head -n 1)
	se=$(sed -n 's/.*<body[^>]* data-selftest="\([^"]*\)".*/\1/p' "$tmp/dom" | head -n 1)
	if [ $rc -ne 0 ]; then
		bad "$1" "$browser exit $rc: $(grep -v dbus "$tmp/browser.log" | tail -n 5)"
	elif grep -q ':CONSOLE' "$tmp/browser.log"; then
		bad "$1" "console: $(grep ':CONSOLE' "$tmp/browser.log" | head -n 5)"
	elif [ "$st" != "ok $3" ]; then
		bad "$1" "data-status '$st', want 'ok $3': $(grep -o '<pre class="err">[^<]*' "$tmp/dom" | head -c 1500)"
	elif [ "${se%% *}" != ok ]; then
		bad "$1" "data-selftest '$se'"
	else
		ok "$1 ($st points; $se)"
	fi
}
if [ -n "$browser" ] && { [ -x "$browser" ] || command -v "$browser" >/dev/null 2>&1; }; then
	load browser_untimed_run "$d/report.html" "$untimed_points"
	# nothing is called best where nothing was timed: the axis says what the order is
	grep -o '<text[^>]*>[^<]*' "$tmp/dom" >"$tmp/labels"
	if grep -q "place in the table (nothing timed" "$tmp/labels" && ! grep -q "1: best" "$tmp/labels"; then
		ok browser_untimed_axis; else bad browser_untimed_axis "$(grep -o '<text[^>]*>[^<]*' "$tmp/dom" | head)"; fi
	load browser_timed "$tmp/fx/timed.html" 18
	if grep -o '<text[^>]*>[^<]*' "$tmp/dom" | grep -q "rank (1: best)"; then ok browser_timed_axis; else bad browser_timed_axis "$(grep -o '<text[^>]*>[^<]*' "$tmp/dom" | head)"; fi
	load browser_untimed "$tmp/fx/untimed.html" 19
	load browser_cap "$tmp/fx/cap.html" 20000
	# the check catches what it must: a script error, and a console message (load's verdict
	# on these pages is read, not counted)
	# refused NAME FILE PATTERN: load fails on FILE, saying PATTERN
	refused() {
		p0=$pass f0=$fail
		load "$1" "$2" 18 >"$tmp/neg" 2>&1
		pass=$p0 fail=$f0
		if grep -q "^FAIL" "$tmp/neg" && grep -q "$3" "$tmp/neg"; then ok "$1"; else bad "$1" "$(cat "$tmp/neg")"; fi
	}
	sed 's/var D = JSON.parse/var D = JSON.parse(undefinedName) || JSON.parse/' "$tmp/fx/timed.html" >"$tmp/broken.html"
	refused browser_catches_errors "$tmp/broken.html" "data-status 'error: ReferenceError"
	sed 's#<script>#<script>console.log("x");#' "$tmp/fx/timed.html" >"$tmp/noisy.html"
	refused browser_catches_console "$tmp/noisy.html" "console:"
elif [ "${TUNER_NO_BROWSER:-0}" = 1 ]; then
	skip browser "TUNER_NO_BROWSER=1: report.html not loaded in a browser"
else
	skip browser "no chromium: report.html not loaded in a browser (apt-get install chromium, or scripts/setup --full)"
fi

# (d) results.t4.json against the T4 results schema: with jsonschema where python has it,
# and by hand; a file that breaks it is refused both ways
py=python3
python3 -c 'import jsonschema' 2>/dev/null || { [ -x /usr/bin/python3 ] &&
	/usr/bin/python3 -c 'import jsonschema' 2>/dev/null && py=/usr/bin/python3; }
# t4 NAME FILE N
t4() {
	if $py tests/t4_check.py "$2" "$3" >"$tmp/t4" 2>&1; then ok "$1: $(cat "$tmp/t4")"; else bad "$1" "$(cat "$tmp/t4")"; fi
	if TUNER_T4_BY_HAND=1 python3 tests/t4_check.py "$2" "$3" >"$tmp/t4" 2>&1; then ok "$1_by_hand"; else bad "$1_by_hand" "$(cat "$tmp/t4")"; fi
}
t4 t4_untimed_run "$d/results.t4.json" 1 # only the dropped variant: nothing was measured
t4 t4_timed "$tmp/fx/timed.t4.json" 22
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["results"][0]["invalidity"] = "slow"
del d["results"][1]["correctness"]
json.dump(d, open(sys.argv[2], "w"))' "$tmp/fx/timed.t4.json" "$tmp/bad.t4.json"
$py tests/t4_check.py "$tmp/bad.t4.json" >"$tmp/t4" 2>&1 && bad t4_refuses_bad "$(cat "$tmp/t4")" ||
	has t4_refuses_bad "2 problems" "$tmp/t4"
TUNER_T4_BY_HAND=1 python3 tests/t4_check.py "$tmp/bad.t4.json" >"$tmp/t4" 2>&1 && bad t4_refuses_bad_by_hand "$(cat "$tmp/t4")" ||
	has t4_refuses_bad_by_hand "2 problems" "$tmp/t4"
$py -c 'import jsonschema' 2>/dev/null ||
	skip t4_jsonschema "no python module jsonschema (apt-get install python3-jsonschema): checked by hand only"

schema_all results_schema_report
finish report
