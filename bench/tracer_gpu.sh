#!/usr/bin/env bash
# Tracer overhead on the GPU host, with the real CUDA runtime: cost per probed call, the
# overhead of a full trace on `stream` at 4 MiB and on a dGPU-style PyTorch resnet50 loop at
# batch 1 (traced and attached), the event rate sustained without loss, and what a trace adds
# to one launch. Needs root and build/bin/echoctl (built on the x86-64 dev machine and
# carried over); ECHOCTL=PATH measures another build (an older one, side by side).
# Every overhead is per round (the traced run against the plain run of the same round, the two
# alternating) and given as the median over the rounds with a distribution-free 95 % confidence
# interval (paired_ci in bench/lib.sh): these machines swing 1.3-2x from day to day, so one
# median of each alone says little.
# PARTS picks the sections (default all: calls cost rate stream resnet launch), so the long
# ResNet-50 rounds can run in a call of their own: PARTS=resnet bench/tracer_gpu.sh.
# Usage: [PARTS="calls cost ..."] bench/tracer_gpu.sh [ROUNDS]  (default 9)
. "$(dirname "$0")/lib.sh"
bench_start
rounds=${1:-9}
parts=" ${PARTS:-calls cost rate stream resnet launch} "
part() { [[ $parts == *" $1 "* ]]; }
bench_out build-gpu/tracer
echoctl=${ECHOCTL:-build/bin/echoctl}
gpu_build testdata/workloads/stream.cu "$out/stream" -cudart shared
gpu_build bench/callcost.cu "$out/callcost" -cudart shared
gpu_build testdata/workloads/stream.cu "$out/stream-static" -cudart static
gpu_build bench/driver_api.cu "$out/driver_api" -lcuda
trace=$(mktemp)

if part calls; then
echo "== the real runtime and driver: what the trace holds (calls by API)"
calls() { # TRACE: "api=count" for every API called
	"$echoctl" stats --json "$1" | python3 -c 'import json,sys; c=json.load(sys.stdin)["calls"]; print(" ".join(f"{k}={v}" for k, v in sorted(c.items())))'
}
"$echoctl" trace --launches -o "$trace" -- "$out/stream" --size 4M --iters 20 --warmup 2 >/dev/null
echo "stream (22 iterations; expect cudaMemcpy=44 cudaLaunchKernel=22, no cu* calls): $(calls "$trace")"
"$echoctl" trace -o "$trace" -- "$out/driver_api" 5 >/dev/null
echo "driver_api 5 (expect cuMemAlloc_v2=1 cuMemcpyHtoD_v2=5 cuMemcpyDtoH_v2=1 cuCtxSynchronize=1 cuMemFree_v2=1): $(calls "$trace")"
"$echoctl" trace --launches -o "$trace" -- "$out/stream-static" --size 4M --iters 20 --warmup 2 >/dev/null
echo "stream -cudart static (expect cudaMemcpy=44 cudaLaunchKernel=22): $(calls "$trace")"
echo
fi

if part cost; then
echo "== cost per call (ns), median of $rounds alternating runs of 300000 calls each, plain and traced"
rm -f "$out"/plain.txt "$out"/traced.txt "$out"/stream_*.txt
for ((r = 0; r < rounds; r++)); do
	"$out/callcost" cost 300000 >>"$out/plain.txt"
	# --host-allocs and --launches: the allocator probes' and a launch's cost are rows
	"$echoctl" trace --host-allocs --launches -o "$trace" -- "$out/callcost" cost 300000 >>"$out/traced.txt" 2>/dev/null
done
printf '%-28s %10s %10s  %s\n' call plain_ns traced_ns 'added ns per call: median [95 % CI]'
for call in "malloc(64)+free" cudaStreamSynchronize cudaGetDevice "cudaMemcpy(64 B, h2d)" cudaLaunchKernel; do
	grep -F "$call " "$out/plain.txt" | awk '{ print $NF }' >"$out/call_plain.txt"
	grep -F "$call " "$out/traced.txt" | awk '{ print $NF }' >"$out/call_traced.txt"
	printf '%-28s %10.1f %10.1f  %s\n' "$call" "$(median <"$out/call_plain.txt")" "$(median <"$out/call_traced.txt")" \
		"$(paired_ci diff "$out/call_plain.txt" "$out/call_traced.txt")"
done
# What of that is Echo's BPF programs (the rest: the uprobe traps, bench/trapcost.sh), where
# build/bin/bpfstats came along (make trapcost): one more traced run, its programs sampled.
if [ -x build/bin/bpfstats ]; then
	echo "-- Echo's BPF programs in one traced run (run-time statistics on: each run costs a little more)"
	build/bin/bpfstats -for 600s >"$out/bpfstats.txt" &
	stats=$!
	sleep 0.5
	"$echoctl" trace --host-allocs --launches -o "$trace" -- "$out/callcost" cost 300000 >/dev/null 2>&1
	kill -INT "$stats"
	wait "$stats" || true
	cat "$out/bpfstats.txt"
fi
fi

if part rate; then
echo
echo "== event rate: THREADS x 250000 cudaStreamSynchronize calls, traced (default 16 MiB ring)"
for threads in 2 4 8; do
	"$echoctl" trace -o "$trace" -- "$out/callcost" rate 250000 "$threads" 2>/dev/null | sed "s/^/threads $threads: untraced-equivalent /" >/dev/null
	"$echoctl" stats --json "$trace" >"$out/rate.json"
	python3 - "$out/rate.json" "$threads" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
secs = s["wall_ns"] / 1e9
print(f"threads {sys.argv[2]}: events {s['events']:>9,}  lost {s['lost']:>9,}  over {secs:.3f} s = {s['events'] / secs:>11,.0f} events/s")
PY
done
fi

if part stream; then
echo "== stream 4 MiB, 500 iterations: median iter_ms over $rounds alternating rounds, plain and traced"
for ((r = 0; r < rounds; r++)); do
	"$out/stream" --size 4M --iters 500 --warmup 20 2>/dev/null | field iter_ms >>"$out/stream_plain.txt"
	"$echoctl" trace -o "$trace" -- "$out/stream" --size 4M --iters 500 --warmup 20 2>/dev/null |
		field iter_ms >>"$out/stream_traced.txt"
done
printf 'stream 4 MiB: plain %.4f ms  traced %.4f ms  overhead %s\n' "$(median <"$out/stream_plain.txt")" \
	"$(median <"$out/stream_traced.txt")" "$(paired_ci ratio "$out/stream_plain.txt" "$out/stream_traced.txt")"
"$echoctl" stats "$trace" | sed -n 1,20p
fi

if part resnet && python3 -c 'import torch, torchvision' 2>/dev/null; then
	echo
	echo "== PyTorch resnet50, batch 1, 224x224, dGPU style, 300 iterations: median iter_ms over $rounds alternating rounds"
	loop=(python3 bench/frameworks/vision_loop.py resnet50 1 224 300)
	rm -f "$out"/rn_*.txt
	for ((r = 0; r < rounds; r++)); do
		"${loop[@]}" 2>/dev/null | field iter_ms >>"$out/rn_plain.txt"
		"$echoctl" trace -o "$trace" -- "${loop[@]}" 2>/dev/null | field iter_ms >>"$out/rn_traced.txt"
		"$echoctl" trace --launches -o "$trace.l" -- "${loop[@]}" 2>/dev/null | field iter_ms >>"$out/rn_launches.txt"
		# attached: trace -p from the program's start (it imports torch for seconds first)
		"${loop[@]}" >"$out/rn.out" 2>/dev/null &
		"$echoctl" trace -p $! -o "$trace.p" >/dev/null 2>&1 || true
		wait
		field iter_ms <"$out/rn.out" >>"$out/rn_attached.txt"
	done
	p=$(median <"$out/rn_plain.txt")
	for mode in traced attached launches; do
		printf 'resnet50 b1: plain %.4f ms  %-8s %.4f ms  overhead %s\n' "$p" "$mode" "$(median <"$out/rn_$mode.txt")" \
			"$(paired_ci ratio "$out/rn_plain.txt" "$out/rn_$mode.txt")"
	done
	echo "(traced and attached: the default, no launch probed; launches: trace --launches)"
	"$echoctl" stats "$trace" | sed -n '/^API/,/^$/p' | head -8
fi

if part launch; then
echo
launch_cost "$echoctl" "$out/stream" 9
fi
rm -f "$trace" "$trace.p" "$trace.l"
