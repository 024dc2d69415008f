#!/usr/bin/env bash
# `echoctl attach` on the GPU host next to the nvcc-built `stream` with the real CUDA runtime:
# --once --json for the process by PID, then the scan without -p. Needs root and
# build/bin/echoctl from the dev machine. Usage: sudo bench/attach_gpu.sh [SIZE] (64M)
. "$(dirname "$0")/lib.sh"
bench_start
size=${1:-64M}
bench_out build-gpu/attach
gpu_build testdata/workloads/stream.cu "$out/stream" -cudart shared
"$out/stream" --size "$size" --iters 100000000 --warmup 0 >"$out/stream.out" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
sleep 3
echo "== attach --once --json -p $pid"
build/bin/echoctl attach --once --json --interval 3s -p "$pid" >"$out/pid.json"
python3 - "$out/pid.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["processes"]:
    print("pid %d %s: copy share %.3f, h2d %.2f GiB/s, d2h %.2f GiB/s, launches/s %.1f, pairs %d, lost %d, error %s"
          % (r["pid"], r["comm"], r["copy_share"], r["h2d_bytes_per_s"] / 2**30, r["d2h_bytes_per_s"] / 2**30,
             r["launches_per_s"], r["pairs"], r["lost"], r.get("error")))
    print("   libraries", r["libraries"])
    for s in r["detail"]["top_sites"] or []:
        print("   site %s %s %s %d bytes %.1f/s share %.3f" % (s["site"], s["api"], s["direction"], s["bytes_per_copy"], s["per_s"], s["share"]))
    for p in r["detail"]["pair_list"] or []:
        print("   pair", p)
    print("   try:", r["detail"]["optimize"])
PY
echo "== attach --once (scan)"
build/bin/echoctl attach --once --interval 2s
