#!/usr/bin/env bash
# The shared tracer on programs nobody here wrote (issue 15): a PyTorch and a CuPy loop from
# bench/frameworks running at once through python3, watched by scanning (attach --once
# --json, no -p), then attach --metrics scraped once. Needs root, build/bin/echoctl and a
# python3 with torch and cupy. Usage: sudo bench/fleet_frameworks_gpu.sh
. "$(dirname "$0")/lib.sh"
bench_start
echoctl=build/bin/echoctl
bench_out build-gpu/fleet
python3 bench/frameworks/torch_loop.py 100000 64 >/dev/null 2>&1 & t=$!
python3 bench/frameworks/cupy_loop.py 100000 64 >/dev/null 2>&1 & c=$!
trap 'kill $t $c 2>/dev/null || true' EXIT
sleep 15 # imports and CUDA start-up
echo "== attach --once --json --interval 3s (scan)"
"$echoctl" attach --once --json --interval 3s >"$out/frameworks.json"
python3 - "$out/frameworks.json" "$t" "$c" <<'PY'
import json, sys
rows = {r["pid"]: r for r in json.load(open(sys.argv[1]))["processes"]}
for pid in map(int, sys.argv[2:]):
    r = rows.get(pid)
    if not r:
        print(pid, "NO ROW"); continue
    top = (r["detail"]["top_sites"] or [{}])[0]
    print("%d %-8s events %6d copies/s %6.1f launches/s %7.1f COPY%% %5.1f pairs %d lost(node) %d libs %d top %s %s %s" % (
        pid, r["comm"], r["events"], r["copies_per_s"], r["launches_per_s"], 100 * r["copy_share"], r["pairs"], r["lost"],
        len(r["libraries"]), top.get("site"), top.get("function", ""), r.get("error", "")))
PY
echo "== attach --metrics for 8 s"
"$echoctl" attach --metrics 127.0.0.1:9465 --interval 1s 2>"$out/frameworks-metrics.err" &
m=$!
sleep 8
python3 - <<'PY'
import urllib.request
text = urllib.request.urlopen("http://127.0.0.1:9465/metrics", timeout=5).read().decode()
for l in text.splitlines():
    if l.startswith(("echo_copy_bytes_total{", "echo_watched_processes", "echo_node_lost", "process_resident_memory_bytes")) and ('direction="h2h"' not in l and 'direction="d2d"' not in l):
        print(" ", l[:200])
PY
kill -INT $m; wait $m || true
