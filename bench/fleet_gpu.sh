#!/usr/bin/env bash
# The shared tracer and attach --metrics on the GPU host (issue 15): several nvcc-built
# programs with the real CUDA runtime watched at once, by scanning (no -p): one row each,
# their events, the lost count; then the metrics endpoint scraped once, and echoctl's own
# resident memory and CPU while it watches them. Needs root and build/bin/echoctl.
# Usage: sudo bench/fleet_gpu.sh [STREAMS] [COMPUTES] (4 2)
. "$(dirname "$0")/lib.sh"
bench_start
streams=${1:-4}
computes=${2:-2}
bench_out build-gpu/fleet
echoctl=build/bin/echoctl
gpu_build testdata/workloads/stream.cu "$out/stream" -cudart shared
gpu_build testdata/workloads/compute.cu "$out/compute" -cudart shared
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
for ((i = 0; i < streams; i++)); do "$out/stream" --size 16M --iters 100000000 --warmup 0 >/dev/null 2>&1 & pids+=($!); done
for ((i = 0; i < computes; i++)); do "$out/compute" --work 200 --iters 100000000 --warmup 0 >/dev/null 2>&1 & pids+=($!); done
sleep 3

echo "== attach --once --json --interval 3s (scan): ${#pids[@]} programs"
"$echoctl" attach --once --json --interval 3s >"$out/once.json"
python3 - "$out/once.json" "${pids[@]}" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1])); want = {int(p) for p in sys.argv[2:]}
rows = {r["pid"]: r for r in doc["processes"]}
print("rows %d, of ours %d/%d" % (len(rows), len(want & rows.keys()), len(want)))
for pid in sorted(want):
    r = rows.get(pid)
    if not r:
        print("  %d: NO ROW" % pid); continue
    print("  %d %-8s events %6d copies/s %8.1f launches/s %8.1f COPY%% %5.1f pairs %d lost(node) %d %s" % (
        pid, r["comm"], r["events"], r["copies_per_s"], r["launches_per_s"], 100 * r["copy_share"], r["pairs"], r["lost"], r.get("error", "")))
PY

echo "== attach --metrics 127.0.0.1:9464 for 10 s"
"$echoctl" attach --metrics 127.0.0.1:9464 --interval 1s 2>"$out/metrics.err" &
mpid=$!
sleep 10
python3 - "$mpid" <<'PY'
import sys, urllib.request
text = urllib.request.urlopen("http://127.0.0.1:9464/metrics", timeout=5).read().decode()
series = [l for l in text.splitlines() if l.startswith("echo_copy_bytes_total{")]
pids = {l.split('pid="')[1].split('"')[0] for l in series}
print("echo_copy_bytes_total series %d over %d processes" % (len(series), len(pids)))
for name in ("echo_watched_processes", "echo_node_lost_events_total", "process_resident_memory_bytes", "process_cpu_seconds_total"):
    for l in text.splitlines():
        if l.startswith(name + " ") or l.startswith(name + "{"):
            print(" ", l)
PY
kill -INT "$mpid"; wait "$mpid" || true
cat "$out/metrics.err" | tail -3
