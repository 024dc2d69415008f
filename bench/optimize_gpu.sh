#!/usr/bin/env bash
# Echo end to end on the GPU host with the real CUDA runtime: `echoctl optimize` on the
# nvcc-built `stream` at 4, 64 and 256 MiB (it must choose mapped and refuse managed on a
# discrete GPU), then the deployed plan against the program as written and the hand-merged
# mapped variant, ROUNDS alternating runs. Everything runs on the CPUs of the GPU's NUMA node,
# so that where the scheduler puts a process does not decide where its pinned buffers land.
# Per size it prints the medians and the median over rounds of echo_ms / manual_ms, the ratio
# of two runs made side by side, and the same against the hand-merged variant that also keeps
# the wait of the elided H2D copy (waits_ms), as the deployed plan does. Last, the cost of the
# idle device-wide wait that each elided synchronous copy keeps. Needs root and
# build/bin/echoctl + build/lib/libechoshim.so from the dev machine.
# Usage: [SIZES="4M 64M"] bench/optimize_gpu.sh [ROUNDS] (7)
. "$(dirname "$0")/lib.sh"
bench_start
rounds=${1:-7}
bench_out build-gpu/optimize

bus=$(gpu_bus)
dev=/sys/bus/pci/devices/$bus
node=$(cat "$dev/numa_node" 2>/dev/null || echo -1)
cpus=$(cat "$dev/local_cpulist" 2>/dev/null || echo "")
pin=()
if [ -n "$cpus" ] && command -v taskset >/dev/null; then
	pin=(taskset -c "$cpus")
fi
echo "== machine: $(gpu_name)," \
	"GPU $bus on NUMA node $node, runs pinned to CPUs ${cpus:-(not pinned)}"

gpu_build testdata/workloads/stream.cu "$out/stream" -cudart shared
gpu_build testdata/workloads/stream.cu "$out/stream-manual" -cudart shared -DECHO_MANUAL
gpu_build testdata/workloads/stream.cu "$out/stream-manual-waits" -cudart shared -DECHO_MANUAL -DECHO_KEEP_WAITS
gpu_build bench/callcost.cu "$out/callcost" -cudart shared
table=$(printf '%-6s %-9s %9s %9s %9s %9s %7s %7s %9s %11s %10s' size strategy base_ms echo_ms manual_ms waits_ms echo× manual× recovered echo/manual echo/waits)
for size in ${SIZES:-4M 64M 256M}; do
	iters=20
	[ "$size" = 4M ] && iters=100
	args=(--size "$size" --iters "$iters" --warmup 3)
	plan="$out/stream-$size.plan"
	echo "== optimize stream $size"
	"${pin[@]}" build/bin/echoctl optimize --ignore '^iter_ms=' --rounds 3 -o "$plan" -- "$out/stream" "${args[@]}" 2>&1 |
		grep -E 'refused|round|predicted|enabled|nothing|variant|baseline|mapped|managed|system' || true
	strategy=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["context"].get("strategy") or "none")' "$plan")
	rm -f "$out"/{base,echo,manual,waits}
	for ((r = 0; r < rounds; r++)); do
		"${pin[@]}" "$out/stream" "${args[@]}" 2>/dev/null >>"$out/base"
		"${pin[@]}" build/bin/echoctl run "$plan" -- "$out/stream" "${args[@]}" 2>/dev/null >>"$out/echo"
		"${pin[@]}" "$out/stream-manual" "${args[@]}" --strategy mapped 2>/dev/null >>"$out/manual"
		"${pin[@]}" "$out/stream-manual-waits" "${args[@]}" --strategy mapped 2>/dev/null >>"$out/waits"
	done
	echo "== rounds at $size (ms): base, echo, manual, waits"
	paste <(iter_ms "$out/base") <(iter_ms "$out/echo") <(iter_ms "$out/manual") <(iter_ms "$out/waits")
	b=$(iter_ms "$out/base" | median)
	e=$(iter_ms "$out/echo" | median)
	m=$(iter_ms "$out/manual" | median)
	w=$(iter_ms "$out/waits" | median)
	ratio=$(iter_ratio "$out/echo" "$out/manual")
	ratio_w=$(iter_ratio "$out/echo" "$out/waits")
	same=$(checksums "$out"/base "$out"/echo "$out"/manual "$out"/waits)
	[ "$same" = 1 ] || echo "CHECKSUMS DIFFER at $size" >&2
	table+=$'\n'$(awk -v s="$size" -v st="$strategy" -v b="$b" -v e="$e" -v m="$m" -v w="$w" -v q="$ratio" -v qw="$ratio_w" 'BEGIN {
		printf "%-6s %-9s %9.3f %9.3f %9.3f %9.3f %6.2fx %6.2fx %8.1f%% %+10.1f%% %+9.1f%%", s, st, b, e, m, w, b / e, b / m, 100 * (b - e) / (b - m), 100 * (q - 1), 100 * (qw - 1) }')
done
echo
echo "$table"
echo
echo "== an idle wait (ns per call, 200000 calls)"
"${pin[@]}" "$out/callcost" sync 200000
