#!/usr/bin/env bash
# cli_report.sh -- the HTML reports in a real browser (Debian's headless
# Chromium; scripts/deps.sh installs it, this test skips when it is absent).
# The page is self-contained (nothing it would fetch); Chromium renders it;
# the numbers in the page's DOM (data-* attributes, as Chromium serialized
# the DOM) equal summary.json, ranks.csv, results.csv and pareto.csv; the
# bars are as long as their values; and the screenshot shows them: the
# pixels of the compute and communication colours stand in the ratio of the
# bars' summed widths, and the timeline's and the front's colours are there.
. "$(dirname "$0")/lib_cli.sh"
CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ]; then
    echo "SKIP: chromium is not installed (scripts/deps.sh installs Debian's chromium for this test)"
    exit 77
fi
cd "$CS_TMP" || exit 1
export PYTHONPATH=$CS_SOURCE_DIR/tests
shot() { # shot PAGE PNG HEIGHT: a screenshot of the page, and its DOM into PAGE.dom
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=1 \
        --window-size=1100,"$3" --screenshot="$PWD/$2" "file://$PWD/$1" > /dev/null 2>&1 &&
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --dump-dom "file://$PWD/$1" > "$1.dom" 2> /dev/null
}
cat > n8.yml <<'NET'
topology: [ Switch ]
npus_count: [ 8 ]
bandwidth: [ 419.1 ]
latency: [ 700.0 ]
NET
"$CS_BIN" train --model gpt3-13b --device H100-SXM --tp 2 --pp 4 --dp 1 --global-batch 8 \
    --network-configuration=n8.yml --out run --report run/r.html --quiet 2> run.err || fail "train: $(cat run.err)"
[ -s run/r.html ] && [ -s run/r.ranks.svg ] && [ -s run/r.timeline.svg ] && pass "the page and its charts as .svg" \
    || fail "files: $(ls run)"
if grep -Eq '(src|href)=|<script|<link|<img|@import|url\(' run/r.html; then fail "the page would fetch something"
else pass "self-contained: no src, href, script, link, img or url()"; fi
shot run/r.html r.png 1400 && pass "chromium rendered the run report" || fail "chromium failed"
python3 - run/r.html.dom run/ranks.csv run/summary.json r.png <<'PY' && pass "run report: DOM numbers = ranks.csv and summary.json; bars and pixels in proportion" || fail "run report"
import csv, json, sys
from report_check import count_colors, elements, png_pixels
els = elements(sys.argv[1]); ranks = list(csv.DictReader(open(sys.argv[2]))); s = json.load(open(sys.argv[3]))
keys = {a["data-key"]: float(a["data-value"]) for t, a in els if "data-key" in a}
near = lambda x, y: abs(x - y) <= 1e-9 * max(1.0, abs(y))
ok = near(keys["sim_time_ns"], s["sim_time_ns"]) and near(keys["energy_per_step_j"], s["cost"]["energy_per_step_j"])
ok = ok and near(keys["capex_usd"], s["cost"]["capex"]["total_usd"]) and keys["ranks"] == 8
bars = [a for t, a in els if t == "rect" and "data-row" in a]
comp = {a["data-row"]: a for a in bars if a["data-series"] == "GPU compute"}
expo = {a["data-row"]: a for a in bars if a["data-series"] != "GPU compute"}
wc = we = 0
fmax = max(float(r["finish_ns"]) for r in ranks)
for r in ranks:
    c, e = comp["rank " + r["rank"]], expo["rank " + r["rank"]]
    cn = min(float(r["compute_ns"]), float(r["finish_ns"]))
    ok = ok and near(float(c["data-value"]), cn) and near(float(e["data-value"]), float(r["finish_ns"]) - cn)
    w = int(c["width"]) + int(e["width"])                    # the bar's length: finish / the longest, of 790 px
    ok = ok and abs(w - float(r["finish_ns"]) / fmax * 790) <= 1
    wc += int(c["width"]); we += int(e["width"])
lanes = {a["data-lane"] for t, a in els if "data-lane" in a}
ok = ok and lanes == {"rank 0 (stage 0)", "rank 2 (stage 1)", "rank 4 (stage 2)", "rank 6 (stage 3)"}
w, h, rows = png_pixels(sys.argv[4])
n = count_colors(rows, ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"])
bar_h = 16                                                   # rows of each bar (20 px pitch less a 4 px gap)
ok = ok and abs(n["#1f77b4"] - wc * bar_h - 12 * 12) <= 0.01 * wc * bar_h   # + the legend's 12 x 12 swatch
ok = ok and abs(n["#ff7f0e"] - we * bar_h - 12 * 12) <= 0.01 * we * bar_h + 40
ok = ok and n["#2ca02c"] > 1000 and n["#d62728"] > 144
sys.exit(0 if ok else (print(keys, n, wc, we), 1)[1])
PY

# the sweep's report
EX=$CS_SOURCE_DIR/examples/data_parallel
"$CS_BIN" run --workload-configuration="$EX/dp.et" --network-configuration="$EX/network.yml" \
    --system-configuration="$EX/system.json" --dump-scenario base.json --quiet --json /dev/null 2> /dev/null
cat > spec.json <<'SPEC'
{"clustersim-sweep": 1, "scenario": "base.json",
 "grid": {"network.bandwidth": [[300, 6.25], [300, 12.5], [300, 25], [300, 50], [300, 100]],
          "cost.npu-price-usd": [15000, 10000, 5000]}}
SPEC
"$CS_BIN" sweep spec.json --out sw -j 2 --no-progress --pareto time_ns,capex_usd --report sw/s.html > /dev/null \
    2> sw.err || fail "sweep: $(cat sw.err)"
shot sw/s.html s.png 1600 && pass "chromium rendered the sweep report" || fail "chromium failed on the sweep report"
python3 - sw/s.html.dom sw/results.csv sw/pareto.csv s.png <<'PY' && pass "sweep report: heatmap, front and best points = results.csv and pareto.csv" || fail "sweep report"
import csv, sys
from report_check import count_colors, elements, png_pixels
els = elements(sys.argv[1]); res = list(csv.DictReader(open(sys.argv[2])))
front = {int(r["point"]) for r in csv.DictReader(open(sys.argv[3]))}
t = {int(r["point"]): float(r["time_ns"]) for r in res}
cells = [a for tag, a in els if tag == "rect" and "data-x" in a]
ok = len(cells) == 15
for a in cells:   # each cell: the smallest time among the points with its two knob values
    pts = [int(r["point"]) for r in res if r["network.bandwidth"] == a["data-x"] and r["cost.npu-price-usd"] == a["data-y"]]
    pts = pts or [int(r["point"]) for r in res if r["network.bandwidth"] == a["data-y"] and r["cost.npu-price-usd"] == a["data-x"]]
    ok = ok and len(pts) == 1 and float(a["data-value"]) == t[pts[0]]
circles = [a for tag, a in els if tag == "circle"]
ok = ok and len(circles) == 15 and {int(a["data-label"]) for a in circles if a["data-front"] == "1"} == front
best = [(int(a["data-point"])) for tag, a in els if tag == "tr" and "data-point" in a]
ok = ok and best == sorted(t, key=lambda p: (t[p], p))[:10]
w, h, rows = png_pixels(sys.argv[4])
n = count_colors(rows, ["#d62728"])
ok = ok and n["#d62728"] > 20 * len(front)
sys.exit(0 if ok else (print(len(cells), len(circles), best, front, n), 1)[1])
PY
finish
