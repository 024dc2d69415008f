#!/usr/bin/env bash
# What a person reads, on the GPU host (issue 14): the copy share attach and stats report
# for a copy-bound (stream) and a kernel-bound (compute) nvcc build with the real runtime
# (inside copy calls, as before, against moving data, the planner's estimate that COPY% now
# shows), the copy sites of a PyTorch loop named by function, and a report of stream's plan
# (copied to $OUT when set). Needs root and build/bin/echoctl from the dev machine.
# Usage: sudo bench/readable_gpu.sh [SIZE] (64M)
. "$(dirname "$0")/lib.sh"
bench_start
size=${1:-64M}
bench_out build-gpu/readable
echoctl=build/bin/echoctl
gpu_build testdata/workloads/stream.cu "$out/stream" -cudart shared -g
gpu_build testdata/workloads/compute.cu "$out/compute" -cudart shared -g

share() { # share FILE KEY...: the keys of a JSON document, as numbers
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join("%.3f" % eval("d" + k) for k in sys.argv[2:]))' "$@"
}

# Each program in its loop: traced 3 s by attaching (stats: the share inside copy calls, and
# the part moving data), then attach --once over 3 s (COPY%, which is the second).
printf '%-20s %8s %8s %8s %9s  %s\n' program inside moving attach launch/s "attach's top site"
run_one() { # run_one NAME BINARY ARGS...
	local name=$1 bin=$2
	shift 2
	"$bin" "$@" --warmup 0 --iters 100000000 >/dev/null 2>&1 &
	local pid=$!
	sleep 3
	"$echoctl" trace -p "$pid" --duration 3s -o "$out/$name.trace" >/dev/null 2>&1
	"$echoctl" stats --json "$out/$name.trace" >"$out/$name.stats.json"
	"$echoctl" attach --once --json --interval 3s -p "$pid" >"$out/$name.attach.json"
	kill "$pid"; wait "$pid" 2>/dev/null || true
	local inside moving attach launches top
	read -r inside moving < <(share "$out/$name.stats.json" '["copy_share"]' '["moving_share"]')
	read -r attach launches < <(share "$out/$name.attach.json" '["processes"][0]["copy_share"]' '["processes"][0]["launches_per_s"]')
	top=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["processes"][0]["detail"]["top_sites"][0]; print(s["site"], s["direction"], s.get("function",""), "%s:%s" % (s.get("file","").split("/")[-1], s.get("line","")), "share %.3f" % s["share"])' "$out/$name.attach.json")
	printf '%-20s %8s %8s %8s %9.0f  %s\n' "$name" "$inside" "$moving" "$attach" "$launches" "$top"
}
run_one "stream $size" "$out/stream" --size "$size"
run_one "compute" "$out/compute"
run_one "compute --work 200" "$out/compute" --work 200
run_one "compute --work 2000" "$out/compute" --work 2000

echo "== a PyTorch loop's copy sites ($(readlink -f "$(command -v python3)"))"
"$echoctl" trace -o "$out/torch.trace" -- python3 bench/frameworks/torch_loop.py 10 64 >/dev/null 2>"$out/torch.err"
"$echoctl" stats --top 5 "$out/torch.trace" | sed -n '/TOP COPY SITES/,$p'
"$echoctl" stats --json "$out/torch.trace" | python3 -c 'import json,sys; s=json.load(sys.stdin)["top_sites"]; print("%d copy sites, %d named by function, %d with a source line" % (len(s), sum(1 for x in s if x.get("function")), sum(1 for x in s if x.get("line"))))'

[ "${REPORT:-1}" = 1 ] || exit 0 # REPORT=0: no optimize run
echo "== report of stream's plan"
(cd "$out" && ../../"$echoctl" optimize --ignore '^iter_ms=' -o stream.plan -- ./stream --size "$size" --iters 20 --warmup 2 2>/dev/null | tail -7)
"$echoctl" report --json "$out/stream.plan"
[ -n "${OUT:-}" ] && cp "$out/stream.plan.html" "$OUT/" || true
